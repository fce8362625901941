/**
 * API keys: the list (never their secrets), a form that creates one (admin, or application: the
 * Application API only; optionally bound to a tenant), the new key shown once, and revoke; then
 * keys scoped to one user (api-keys/user-keys.tsx).
 */
import { useState } from 'preact/hooks';
import { deleteOne, type Session } from '../api.js';
import { createFromForm, Field, fieldSetter } from '../form.js';
import { ListBox, useList } from '../list.js';
import { UserKeys } from './api-keys/user-keys.js';
import type { Tenant } from './tenants.js';

interface ApiKey {
  id: string;
  name: string;
  kind: 'admin' | 'application';
  tenantId: string | null;
  prefix: string;
  created: string;
  /** Only in the create's answer. */
  key?: string;
}

export function ApiKeysPage({ session }: { session: Session }) {
  const list = useList<ApiKey>(session, '/admin/v1/api-keys?limit=100');
  const tenants = useList<Tenant>(session, '/admin/v1/tenants?limit=100').items ?? [];
  const [form, setForm] = useState({ name: '', kind: 'application', tenantId: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [fresh, setFresh] = useState<ApiKey | null>(null);
  const set = fieldSetter(form, setForm);
  const submit = async (e: Event) => {
    e.preventDefault();
    setFresh(null);
    const item = { name: form.name, kind: form.kind, tenantId: form.tenantId === '' ? null : form.tenantId };
    const created = await createFromForm<ApiKey>(session, '/admin/v1/api-keys', item, ['name', 'kind', 'tenantId'], setErrors);
    if (created === null) return;
    setFresh(created);
    setForm({ ...form, name: '' });
    await list.reload();
  };
  const revoke = async (k: ApiKey) => {
    setErrors({ list: await deleteOne(session, '/admin/v1/api-keys', k.id) });
    await list.reload();
  };
  const tenantName = (id: string | null) => (id === null ? 'any' : tenants.find((t) => t.id === id)?.name ?? id);
  return (
    <section>
      <h1>API keys</h1>
      <form class="card" onSubmit={submit} aria-label="New API key">
        <h2>New API key</h2>
        <Field id="key-name" label="Name" error={errors.name}>
          <input id="key-name" value={form.name} required onInput={set('name')} />
        </Field>
        <Field id="key-kind" label="Kind" error={errors.kind}>
          <select id="key-kind" value={form.kind} onChange={set('kind')}>
            <option value="application">Application (the Application API only)</option>
            <option value="admin">Admin (everything)</option>
          </select>
        </Field>
        <Field id="key-tenant" label="Bound to the tenant" error={errors.tenantId}>
          <select id="key-tenant" value={form.tenantId} onChange={set('tenantId')}>
            <option value="">Any (chosen by the Tenant-ID header)</option>
            {tenants.filter((t) => t.status === 'active').map((t) => <option key={t.id} value={t.customerId}>{t.name}</option>)}
          </select>
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create key</button>
      </form>
      {fresh?.key !== undefined && (
        <div class="card secret" role="region" aria-label="The new key">
          <h2>The new key: {fresh.name}</h2>
          <p><code id="new-key">{fresh.key}</code></p>
          <p><strong>Copy it now:</strong> laurel keeps only its hash, and will not show it again.</p>
          <button type="button" class="small" onClick={() => setFresh(null)}>I have copied it</button>
        </div>
      )}
      <p class="error" role="alert">{errors.list ?? ''}</p>
      <ListBox list={list} empty="No keys.">
        {(items) => (
          <table class="keys">
            <thead><tr><th>Name</th><th>Kind</th><th>Tenant</th><th>Starts with</th><th>Created</th><th></th></tr></thead>
            <tbody>{items.map((k) => (
              <tr key={k.id}>
                <td>{k.name}{session.key.startsWith(k.prefix.replace(/…$/, '')) && <strong> (this session's)</strong>}</td><td>{k.kind}</td><td>{tenantName(k.tenantId)}</td><td><code>{k.prefix.replace(/…$/, "")}…</code></td><td>{k.created.slice(0, 10)}</td>
                <td><button type="button" class="small danger" aria-label={`Revoke ${k.name}`} onClick={() => revoke(k)}>Revoke</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </ListBox>
      <UserKeys key={session.tenant} session={session} />
    </section>
  );
}
