/** Editing a level of a points system (PATCH `/admin/v1/points/:id/levels`): its name, key, points and description. */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { Field } from '../../form.js';
import type { PointsLevelAdminView as Level } from '../../types.js';


export function EditLevel(props: { session: Session; path: string; level: Level; onSaved: () => unknown; onClose: () => void }) {
  const { level: l } = props;
  const initial = { name: l.name, key: l.key, points: String(l.points), description: l.description };
  const { form, set, errors, state } = useEditForm(props.session, props.path, l.id, initial, (f) => ({
    name: f.name, key: f.key, points: Number(f.points), description: f.description === '' ? null : f.description,
  }), ['key', 'name', 'points', 'description'], props.onSaved);
  const p = 'level-edit';
  return (
    <EditCard label={`Edit level ${l.name}`} title={`Edit the level ${l.name}`} state={state} onClose={props.onClose}>
      <div class="row">
        <Field id={`${p}-name`} label="Level name" error={errors.name}>
          <input id={`${p}-name`} value={form.name} required onInput={set('name')} />
        </Field>
        <Field id={`${p}-key`} label="Level key" error={errors.key}>
          <input id={`${p}-key`} value={form.key} required onInput={set('key')} />
        </Field>
        <Field id={`${p}-points`} label="Reached at (points)" error={errors.points}>
          <input id={`${p}-points`} type="number" min="0" value={form.points} required onInput={set('points')} />
        </Field>
      </div>
      <Field id={`${p}-description`} label="Description" error={errors.description}>
        <textarea id={`${p}-description`} rows={2} value={form.description} onInput={set('description')} />
      </Field>
    </EditCard>
  );
}
