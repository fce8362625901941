/**
 * Audit: the Admin API's writes, newest first (GET /admin/v1/audit), 25 a page, Next page and
 * Previous page; found by key and by operation; each row's body (without secrets) opened on demand.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { Pager, useCursorPages } from '../cursor-pages.js';
import { Field } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { ApiKeyView, AuditEntryView, AuditPageView, TenantView } from '../types.js';

const PAGE = 25;

interface Search {
  keyId: string;
  operation: string;
}

const EMPTY: Search = { keyId: '', operation: '' };

/** The list's query for a search and the page at `cursor`. */
function queryOf(s: Search, cursor: string): string {
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (s.keyId !== '') q.set('keyId', s.keyId);
  if (s.operation.trim() !== '') q.set('operation', s.operation.trim().replace(/\s+/, ' '));
  if (cursor !== '') q.set('cursor', cursor);
  return q.toString();
}

function Body({ entry }: { entry: AuditEntryView }) {
  if (entry.body === null) return <span class="muted">none</span>;
  return (
    <details>
      <summary>Body</summary>
      <pre>{JSON.stringify(entry.body, null, 2)}</pre>
    </details>
  );
}

export function AuditPage({ session }: { session: Session }) {
  const keys = useList<ApiKeyView>(session, '/admin/v1/api-keys?limit=100');
  const tenants = useList<TenantView>(session, '/admin/v1/tenants?limit=100');
  // A tenant by its name; one deleted since by its id.
  const tenantOf = (id: string) => tenants.items?.find((t) => t.id === id)?.name ?? <code>{id}</code>;
  const [form, setForm] = useState(EMPTY);
  // The search shown: the form's once submitted.
  const [search, setSearch] = useState(EMPTY);
  const pages = useCursorPages<AuditPageView, AuditEntryView>(session, (cursor) => `/admin/v1/audit?${queryOf(search, cursor)}`, (p) => p.entries,
    [search]);
  const submit = (e: Event) => {
    e.preventDefault();
    setSearch({ ...form });
    pages.restart();
  };
  return (
    <section>
      <h1>Audit</h1>
      <section class="card" aria-label="Admin writes">
        <form class="row" onSubmit={submit} aria-label="Find admin writes">
          <Field id="audit-key" label="Key">
            <select id="audit-key" value={form.keyId} onChange={(e) => setForm({ ...form, keyId: e.currentTarget.value })}>
              <option value="">Any</option>
              {(keys.items ?? []).map((k) => <option key={k.id} value={k.id}>{k.name}</option>)}
            </select>
          </Field>
          <Field id="audit-operation" label="Operation">
            <input id="audit-operation" value={form.operation} placeholder="PATCH /admin/v1/metrics"
              onInput={(e) => setForm({ ...form, operation: e.currentTarget.value })} />
          </Field>
          <button type="submit">Find</button>
        </form>
        <p class="muted">Every write of the Admin API, refused ones too, a second or so after its answer; secrets are not kept. Every tenant's, whichever is chosen above.</p>
        <ItemTable list={pages.list} empty="No write matches." class="audit" label="Admin writes found"
          columns={[
            { head: 'When', cell: (e) => e.at.replace('T', ' ').slice(0, 19) },
            { head: 'Key', cell: (e) => e.keyName || <code>{e.keyId}</code> },
            { head: 'Operation', cell: (e) => <code>{e.operation}</code>, class: 'wrap' },
            { head: 'Status', cell: (e) => String(e.status) },
            { head: 'Touched', cell: (e) => e.ids.join(', ') || '—', class: 'wrap' },
            { head: 'Tenant', cell: (e) => (e.tenantId === null ? 'account' : e.tenantId === '_' ? 'default' : tenantOf(e.tenantId)) },
            { head: 'Body', cell: (e) => <Body entry={e} />, class: 'wrap' },
          ]} />
        <Pager pages={pages} size={PAGE} noun="Writes" />
      </section>
    </section>
  );
}
