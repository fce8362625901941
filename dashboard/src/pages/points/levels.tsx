/** A points system's levels (`/admin/v1/points/:id/levels`): the list by points, a form that adds one, edit (level-edit.tsx), delete. */
import { useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { useCreateForm } from '../../create-form.js';
import { useConfirm } from '../../confirm.js';
import { Field, KeyField } from '../../form.js';
import { ItemTable, useList } from '../../list.js';
import type { PointsLevelAdminView as Level } from '../../types.js';
import { EditLevel } from './level-edit.js';

export function Levels({ session, systemId }: { session: Session; systemId: string }) {
  const path = `/admin/v1/points/${encodeURIComponent(systemId)}/levels`;
  const list = useList<Level>(session, `${path}?limit=100`);
  const { form, set, errors, submit, remove } = useCreateForm(
    session, path, list, { name: '', key: '', points: '' }, (f) => ({ ...f, points: Number(f.points) }), ['key', 'name', 'points'],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const [dialog, confirm] = useConfirm();
  const drop = async (l: Level) => {
    if (!await confirm({
      title: `Delete the level ${l.name}?`, action: 'Delete',
      body: <p>Users at {l.points} points or more are no longer at <strong>{l.name}</strong>: they fall to the level below, and its key <code>{l.key}</code> leaves the answers.</p>,
    })) return;
    await remove(l.id);
  };
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
      <ItemTable list={list} empty="No levels yet." label="Levels" class="levels" error={errors.form ?? errors.list ?? ''}
        sort={(a, b) => a.points - b.points}
        columns={[{ head: 'Points', cell: (l) => l.points }, { head: 'Key', cell: (l) => <code>{l.key}</code> }, { head: 'Name', cell: (l) => l.name }]}
        actions={(l) => (
          <>
            <button type="button" class="small" aria-label={`Edit level ${l.name}`} onClick={() => setEditing(l.id)}>Edit</button>
            <button type="button" class="small danger" aria-label={`Delete level ${l.name}`} onClick={() => drop(l)}>Delete</button>
          </>
        )} />
      {edited !== undefined && (
        <EditLevel key={edited.id} session={session} path={path} level={edited} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {dialog}
    </div>
  );
}
