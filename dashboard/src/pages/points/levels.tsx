/** A points system's levels (`/admin/v1/points/:id/levels`): the list by points, a form that adds one, edit (level-edit.tsx), delete. */
import { useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { useCreateForm } from '../../create-form.js';
import { Field, KeyField } from '../../form.js';
import { ListBox, useList } from '../../list.js';
import { EditLevel, type Level } from './level-edit.js';

export function Levels({ session, systemId }: { session: Session; systemId: string }) {
  const path = `/admin/v1/points/${encodeURIComponent(systemId)}/levels`;
  const list = useList<Level>(session, `${path}?limit=100`);
  const { form, set, errors, submit, remove } = useCreateForm(
    session, path, list, { name: '', key: '', points: '' }, (f) => ({ ...f, points: Number(f.points) }), ['key', 'name', 'points'],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const edited = list.items?.find((l) => l.id === editing);
  return (
    <div class="card">
      <h2>Levels</h2>
      <form class="row" onSubmit={submit} aria-label="New level">
        <Field id="level-name" label="Level name" error={errors.name}>
          <input id="level-name" value={form.name} required onInput={set('name')} />
        </Field>
        <KeyField id="level-key" label="Level key" value={form.key} error={errors.key} onInput={set('key')} />
        <Field id="level-points" label="Reached at (points)" error={errors.points}>
          <input id="level-points" type="number" min="0" value={form.points} required onInput={set('points')} />
        </Field>
        <button type="submit">Add level</button>
      </form>
      <p class="error" role="alert">{errors.form ?? errors.list ?? ''}</p>
      <ListBox list={list} empty="No levels yet." label="Levels">
        {(items) => (
          <table class="levels">
            <thead><tr><th>Points</th><th>Key</th><th>Name</th><th></th></tr></thead>
            <tbody>{[...items].sort((a, b) => a.points - b.points).map((l) => (
              <tr key={l.id}>
                <td>{l.points}</td><td><code>{l.key}</code></td><td>{l.name}</td>
                <td class="actions">
                  <button type="button" class="small" aria-label={`Edit level ${l.name}`} onClick={() => setEditing(l.id)}>Edit</button>
                  <button type="button" class="small danger" aria-label={`Delete level ${l.name}`} onClick={() => remove(l.id)}>Delete</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </ListBox>
      {edited !== undefined && (
        <EditLevel key={edited.id} session={session} path={path} level={edited} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
    </div>
  );
}
