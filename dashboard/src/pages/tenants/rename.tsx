/**
 * Renaming a tenant (PATCH /admin/v1/tenants `[{ id, name }]`). Its customer id stays: it is what
 * the callers' Tenant-ID header sends.
 */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { Field } from '../../form.js';

export function RenameTenant(props: { session: Session; tenant: { id: string; customerId: string; name: string }; onSaved: () => unknown; onClose: () => void }) {
  const { tenant: t } = props;
  const { form, set, errors, state } = useEditForm(props.session, '/admin/v1/tenants', t.id, { name: t.name }, (f) => f, ['name'], props.onSaved);
  return (
    <EditCard label={`Rename tenant ${t.customerId}`} title={`Rename ${t.customerId}`} state={state} onClose={props.onClose}>
      <Field id="tenant-rename" label="New name" error={errors.name}>
        <input id="tenant-rename" value={form.name} required onInput={set('name')} />
      </Field>
    </EditCard>
  );
}
