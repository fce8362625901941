/**
 * A points system's boosts (`/admin/v1/points/:id/boosts`): a multiplier over a window of days,
 * for everyone or one user; the list with each one's status, a form that adds one, edit
 * (boost-edit.tsx), delete.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { useCreateForm } from '../../create-form.js';
import { useConfirm } from '../../confirm.js';
import { Field } from '../../form.js';
import { ItemTable, useList } from '../../list.js';
import type { PointsBoostAdminView as Boost } from '../../types.js';
import { EditBoost } from './boost-edit.js';

const today = () => new Date().toISOString().slice(0, 10);

export function Boosts({ session, systemId }: { session: Session; systemId: string }) {
  const path = `/admin/v1/points/${encodeURIComponent(systemId)}/boosts`;
  const list = useList<Boost>(session, `${path}?limit=100`);
  const empty = { name: '', start: today(), end: '', multiplier: '2', rounding: 'down', userId: '' };
  const { form, set, errors, submit, remove } = useCreateForm(session, path, list, empty, (f) => ({
    name: f.name, start: f.start, end: f.end === '' ? null : f.end, multiplier: Number(f.multiplier),
    rounding: f.rounding, userId: f.userId === '' ? null : f.userId,
  }), ['name', 'start', 'end', 'multiplier', 'rounding', 'userId']);
  const [editing, setEditing] = useState<string | null>(null);
  const [dialog, confirm] = useConfirm();
  const drop = async (b: Boost) => {
    if (!await confirm({
      title: `Delete the boost ${b.name}?`, action: 'Delete',
      body: <p>Points awarded from then on are no longer multiplied by {b.multiplier} for {b.userId ?? 'everyone'}; what it multiplied already stays awarded.</p>,
    })) return;
    await remove(b.id);
  };
  const edited = list.items?.find((b) => b.id === editing);
  return (
    <div class="card">
      <h2>Boosts</h2>
      <form class="row" onSubmit={submit} aria-label="New boost">
        <Field id="boost-name" label="Boost name" error={errors.name}>
          <input id="boost-name" value={form.name} required onInput={set('name')} />
        </Field>
        <Field id="boost-multiplier" label="Multiplier" error={errors.multiplier}>
          <input id="boost-multiplier" type="number" step="any" min="0" value={form.multiplier} required onInput={set('multiplier')} />
        </Field>
        <Field id="boost-start" label="From (day)" error={errors.start}>
          <input id="boost-start" type="date" value={form.start} required onInput={set('start')} />
        </Field>
        <Field id="boost-end" label="To (day, optional)" error={errors.end}>
          <input id="boost-end" type="date" value={form.end} onInput={set('end')} />
        </Field>
        <Field id="boost-rounding" label="Rounding" error={errors.rounding}>
          <select id="boost-rounding" value={form.rounding} onChange={set('rounding')}>
            <option value="down">Down</option><option value="up">Up</option><option value="nearest">Nearest</option>
          </select>
        </Field>
        <Field id="boost-user" label="For one user (id, optional)" error={errors.userId}>
          <input id="boost-user" value={form.userId} onInput={set('userId')} />
        </Field>
        <button type="submit">Add boost</button>
      </form>
      <ItemTable list={list} empty="No boosts yet." label="Boosts" class="boosts" error={errors.form ?? errors.list ?? ''}
        columns={[
          { head: 'Name', cell: (b) => b.name }, { head: '×', cell: (b) => b.multiplier },
          { head: 'Days', cell: (b) => `${b.start} → ${b.end ?? '…'}` }, { head: 'For', cell: (b) => b.userId ?? 'everyone' },
          { head: 'Status', cell: (b) => b.status },
        ]}
        actions={(b) => (
          <>
            <button type="button" class="small" aria-label={`Edit boost ${b.name}`} onClick={() => setEditing(b.id)}>Edit</button>
            <button type="button" class="small danger" aria-label={`Delete boost ${b.name}`} onClick={() => drop(b)}>Delete</button>
          </>
        )} />
      {edited !== undefined && (
        <EditBoost key={edited.id} session={session} path={path} boost={edited} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {dialog}
    </div>
  );
}
