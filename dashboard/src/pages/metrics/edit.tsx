/**
 * Editing a metric (PATCH /admin/v1/metrics): its name, its units (a number, or an amount of a
 * currency by its ISO 4217 code) and its limit per user (limits.tsx; "no limit" takes it off). Its
 * key cannot change: your backend sends events by it.
 */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { Field } from '../../form.js';
import type { MetricView } from '../../types.js';
import { LIMIT_FIELDS, LimitFields, limitFormOf, limitsOf } from './limits.js';

/** A metric's units in words: "a number", "USD". */
export function unitsOf(m: MetricView): string {
  return m.unitType === 'currency' ? m.units : m.units === '' ? 'a number' : m.units;
}

export function EditMetric(props: { session: Session; metric: MetricView; onSaved: () => unknown; onClose: () => void }) {
  const { metric: m } = props;
  const { form, set, errors, state } = useEditForm(props.session, '/admin/v1/metrics', m.id,
    { name: m.name, unitType: m.unitType as string, units: m.units, ...limitFormOf(m) },
    (f) => ({ name: f.name, unitType: f.unitType, units: f.units, limits: limitsOf(f) }), ['name', 'unitType', 'units', ...LIMIT_FIELDS], props.onSaved);
  const p = 'metric-edit';
  return (
    <EditCard label={`Edit metric ${m.key}`} title={`Edit the metric ${m.key}`} state={state} onClose={props.onClose}>
      <div class="row">
        <Field id={`${p}-name`} label="Name" error={errors.name}>
          <input id={`${p}-name`} value={form.name} required maxLength={255} onInput={set('name')} />
        </Field>
        <Field id={`${p}-unit-type`} label="Counts" error={errors.unitType}>
          <select id={`${p}-unit-type`} value={form.unitType} onChange={set('unitType')}>
            <option value="number">a number</option><option value="currency">an amount of money</option>
          </select>
        </Field>
        <Field id={`${p}-units`} label={form.unitType === 'currency' ? 'Currency (ISO 4217, e.g. USD)' : 'Units (optional, e.g. lessons)'} error={errors.units}>
          <input id={`${p}-units`} value={form.units} maxLength={32} required={form.unitType === 'currency'}
            pattern={form.unitType === 'currency' ? '[A-Z]{3}' : undefined} onInput={set('units')} />
        </Field>
      </div>
      <LimitFields prefix={p} form={form} errors={errors} set={set} />
    </EditCard>
  );
}
