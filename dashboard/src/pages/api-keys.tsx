/**
 * API keys: the list (never their secrets), a form that creates one (admin, or application: the
 * Application API only; optionally bound to a tenant), the new key shown once, and revoke; then
 * keys scoped to one user (api-keys/user-keys.tsx). Revoking is asked first.
 */
import { useState } from 'preact/hooks';
import { deleteOne, type Session } from '../api.js';
import { useConfirm } from '../confirm.js';
import { createFromForm, Field, fieldSetter } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { ApiKeyView as ApiKey, TenantView as Tenant } from '../types.js';
import { moment } from '../words.js';
import { UserKeys } from './api-keys/user-keys.js';

export function ApiKeysPage({ session }: { session: Session }) {
  const list = useList<ApiKey>(session, '/admin/v1/api-keys?limit=100');
  const tenants = useList<Tenant>(session, '/admin/v1/tenants?limit=100').items ?? [];
  const [form, setForm] = useState({ name: '', kind: 'application', tenantId: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [fresh, setFresh] = useState<ApiKey | null>(null);
  const set = fieldSetter(form, setForm);
  const [dialog, confirm] = useConfirm();
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
    const own = isSessions(k);
    if (!await confirm({
      title: `Revoke the key ${k.name}?`, action: 'Revoke',
      body: <p>Every call made with it is refused (401) at once, in every api process{own ? ', this dashboard\'s too: you will have to sign in with another admin key' : ''}. A revoked key cannot be brought back: the callers need a new one.</p>,
    })) return;
    const refused = await deleteOne(session, '/admin/v1/api-keys', k.id);
    setErrors({ list: refused });
    // The key just made, revoked before it was put away: its box goes with it.
    if (refused === '' && fresh?.id === k.id) setFresh(null);
    await list.reload();
  };
  const isSessions = (k: ApiKey) => session.key.startsWith(k.prefix.replace(/…$/, ''));
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
      <ItemTable list={list} empty="No keys." class="keys" error={errors.list ?? ''}
        columns={[
          { head: 'Name', cell: (k) => <>{k.name}{isSessions(k) && <strong> (this session's)</strong>}</> },
          { head: 'Kind', cell: (k) => k.kind }, { head: 'Tenant', cell: (k) => tenantName(k.tenantId) },
          { head: 'Starts with', cell: (k) => <code>{k.prefix.replace(/…$/, '')}…</code> }, { head: 'Created', cell: (k) => moment(k.created) },
        ]}
        actions={(k) => <button type="button" class="small danger" aria-label={`Revoke ${k.name}`} onClick={() => revoke(k)}>Revoke</button>} />
      <UserKeys key={session.tenant} session={session} />
      {dialog}
    </section>
  );
}
