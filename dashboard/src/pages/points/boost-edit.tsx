/**
 * Editing a boost of a points system (PATCH `/admin/v1/points/:id/boosts`): its name, multiplier,
 * days and rounding, and, for a boost for everyone, the user attributes of the users it boosts. Its
 * user (a boost for one user) cannot change.
 */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { FiltersField } from '../../filters.js';
import { Field } from '../../form.js';
import { useAttributes } from '../../list.js';
import type { PointsBoostAdminView as Boost } from '../../types.js';


const FIELDS = ['name', 'multiplier', 'start', 'end', 'rounding', 'userAttributes'];

export function EditBoost(props: { session: Session; path: string; boost: Boost; onSaved: () => unknown; onClose: () => void }) {
  const { boost: b } = props;
  const users = useAttributes(props.session).user;
  const initial = {
    name: b.name, multiplier: String(b.multiplier), start: b.start, end: b.end ?? '', rounding: b.rounding, userAttributes: b.userAttributes ?? [],
  };
  const { form, set, put, errors, state } = useEditForm(props.session, props.path, b.id, initial, (f) => ({
    name: f.name, multiplier: Number(f.multiplier), start: f.start, end: f.end === '' ? null : f.end, rounding: f.rounding,
    ...(b.userId === null && { userAttributes: f.userAttributes }),
  }), FIELDS, props.onSaved);
  const p = 'boost-edit';
  return (
    <EditCard label={`Edit boost ${b.name}`} title={`Edit the boost ${b.name}${b.userId === null ? '' : ` (for ${b.userId})`}`} state={state} onClose={props.onClose}>
      <div class="row">
        <Field id={`${p}-name`} label="Boost name" error={errors.name}>
          <input id={`${p}-name`} value={form.name} required onInput={set('name')} />
        </Field>
        <Field id={`${p}-multiplier`} label="Multiplier" error={errors.multiplier}>
          <input id={`${p}-multiplier`} type="number" step="any" min="0" value={form.multiplier} required onInput={set('multiplier')} />
        </Field>
        <Field id={`${p}-start`} label="From (day)" error={errors.start}>
          <input id={`${p}-start`} type="date" value={form.start} required onInput={set('start')} />
        </Field>
        <Field id={`${p}-end`} label="To (day, optional)" error={errors.end}>
          <input id={`${p}-end`} type="date" value={form.end} onInput={set('end')} />
        </Field>
        <Field id={`${p}-rounding`} label="Rounding" error={errors.rounding}>
          <select id={`${p}-rounding`} value={form.rounding} onChange={set('rounding')}>
            <option value="down">Down</option><option value="up">Up</option><option value="nearest">Nearest</option>
          </select>
        </Field>
      </div>
      {b.userId === null && (
        <FiltersField id={`${p}-userAttributes`} label="Only users with" attributes={users} value={form.userAttributes}
          onChange={(v) => put('userAttributes', v)} error={errors.userAttributes} none="It boosts everyone." />
      )}
    </EditCard>
  );
}
