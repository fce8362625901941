/**
 * Tenants: the list, a form that creates one (its customerId is what the Tenant-ID header sends),
 * rename (tenants/rename.tsx), and archive (asked first) / restore. The tenant switcher hears of a
 * change (TENANTS_CHANGED).
 */
import { useState } from 'preact/hooks';
import { updateOne, type Session } from '../api.js';
import { createFromForm, Field, fieldSetter, RuledField } from '../form.js';
import { CUSTOMER_ID_RULE } from '../rules.js';
import { useConfirm } from '../confirm.js';
import { ItemTable, useList } from '../list.js';
import type { TenantView } from '../types.js';
import { RenameTenant } from './tenants/rename.js';

export type Tenant = TenantView;

/** Dispatched on window when the tenants changed (the switcher reloads them). */
export const TENANTS_CHANGED = 'laurel:tenants';

export function TenantsPage({ session }: { session: Session }) {
  const list = useList<Tenant>(session, '/admin/v1/tenants?limit=100');
  const [form, setForm] = useState({ customerId: '', name: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [renaming, setRenaming] = useState<string | null>(null);
  const [dialog, confirm] = useConfirm();
  const set = fieldSetter(form, setForm);
  const changed = async () => {
    await list.reload();
    dispatchEvent(new Event(TENANTS_CHANGED));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await createFromForm<Tenant>(session, '/admin/v1/tenants', form, ['customerId', 'name'], setErrors) === null) return;
    setForm({ customerId: '', name: '' });
    await changed();
  };
  const toggle = async (t: Tenant) => {
    if (t.status === 'active' && !await confirm({
      title: `Archive the tenant ${t.name}?`, action: 'Archive',
      body: <p>Every call that sends <code>Tenant-ID: {t.customerId}</code> is refused (404) while it is archived, and so is every call with a key bound to it. Its users and their data are kept: Restore takes it back.</p>,
    })) return;
    try {
      const { error } = await updateOne(session, '/admin/v1/tenants', { id: t.id, status: t.status === 'active' ? 'archived' : 'active' });
      setErrors({ list: error });
    } catch (err) {
      setErrors({ list: (err as Error).message });
    }
    await changed();
  };
  const renamed = list.items?.find((t) => t.id === renaming);
  return (
    <section>
      <h1>Tenants</h1>
      <p class="muted">Each tenant has its own users, events and rankings; configuration is shared. Calls name a tenant with the <code>Tenant-ID</code> header: its customer id.</p>
      <form class="card" onSubmit={submit} aria-label="New tenant">
        <h2>New tenant</h2>
        <RuledField id="tenant-customer" label="Customer id" rule={CUSTOMER_ID_RULE} value={form.customerId} error={errors.customerId} onInput={set('customerId')}
          hint={<>What calls send as <code>Tenant-ID</code>: {CUSTOMER_ID_RULE.words}, e.g. <code>acme</code>.</>} />
        <Field id="tenant-name" label="Name" error={errors.name}>
          <input id="tenant-name" value={form.name} required onInput={set('name')} />
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create tenant</button>
      </form>
      <ItemTable list={list} empty="No tenants yet: everything is in the default tenant." class="tenants" error={errors.list ?? ''}
        columns={[{ head: 'Customer id', cell: (t) => <code>{t.customerId}</code> }, { head: 'Name', cell: (t) => t.name }, { head: 'Status', cell: (t) => t.status }]}
        actions={(t) => (
          <>
            <button type="button" class="small" aria-label={`Rename ${t.name}`} onClick={() => setRenaming(t.id)}>Rename</button>
            <button type="button" class="small" aria-label={`${t.status === 'active' ? 'Archive' : 'Restore'} ${t.name}`} onClick={() => toggle(t)}>
              {t.status === 'active' ? 'Archive' : 'Restore'}
            </button>
          </>
        )} />
      {renamed !== undefined && (
        <RenameTenant key={renamed.id} session={session} tenant={renamed} onSaved={changed} onClose={() => setRenaming(null)} />
      )}
      {dialog}
    </section>
  );
}
