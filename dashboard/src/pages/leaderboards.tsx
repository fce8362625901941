/**
 * Leaderboards: the list with each one's lifecycle actions (leaderboards/lifecycle.tsx), a form that
 * creates one (perpetual or repeating, optionally grouped by a user attribute; its fields in
 * leaderboards/fields.tsx), editing one (leaderboards/edit.tsx), and the rankings of the one chosen,
 * of any run, with the past runs' winners (leaderboards/rankings.tsx).
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { createFromForm, Field, fieldSetter, NameKey } from '../form.js';
import { ListBox, useActiveMetrics, useList } from '../list.js';
import type { Attribute } from './attributes.js';
import { EditBoard } from './leaderboards/edit.js';
import { RankFields, RunFields } from './leaderboards/fields.js';
import { Lifecycle } from './leaderboards/lifecycle.js';
import { Rankings, type Board } from './leaderboards/rankings.js';

const EMPTY = { rankBy: 'metric', name: '', key: '', metricId: '', pointsSystemId: '', maxParticipants: '100', runUnit: '', runInterval: '1', start: '', breakdown: '' };

export function LeaderboardsPage({ session }: { session: Session }) {
  const list = useList<Board>(session, '/admin/v1/leaderboards?limit=100');
  const metrics = useActiveMetrics(session);
  const systems = useList<{ id: string; name: string }>(session, '/admin/v1/points?limit=100').items ?? [];
  const attributes = (useList<Attribute>(session, '/admin/v1/attributes?limit=100').items ?? []).filter((a) => a.type === 'user');
  const [chosen, setChosen] = useState<Board | null>(null);
  // Each Rankings click opens the board's rankings afresh (read again), the same board's too.
  const [opened, setOpened] = useState(0);
  const open = (b: Board) => { setChosen(b); setOpened((n) => n + 1); };
  const [editing, setEditing] = useState<string | null>(null);
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [moveError, setMoveError] = useState('');
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await createFromForm<Board>(session, '/admin/v1/leaderboards', {
      name: form.name, key: form.key, rankBy: form.rankBy, maxParticipants: Number(form.maxParticipants), status: 'active',
      ...(form.rankBy === 'metric' && { metricId: form.metricId }),
      ...(form.rankBy === 'points' && { pointsSystemId: form.pointsSystemId }),
      ...(form.runUnit !== '' && { runUnit: form.runUnit, runInterval: Number(form.runInterval) }),
      ...(form.start !== '' && { start: form.start }),
      ...(form.breakdown !== '' && { breakdownAttributes: [form.breakdown] }),
    }, ['key', 'name', 'metricId', 'pointsSystemId', 'maxParticipants', 'runUnit', 'runInterval', 'start', 'breakdownAttributes', 'rankBy'], setErrors);
    if (created === null) return;
    setForm({ ...EMPTY, rankBy: form.rankBy, metricId: form.metricId, pointsSystemId: form.pointsSystemId });
    await list.reload();
    open(created);
  };
  const edited = list.items?.find((b) => b.id === editing);
  const moved = async (error: string) => {
    setMoveError(error);
    await list.reload();
  };

  return (
    <section>
      <h1>Leaderboards</h1>
      <form class="card" onSubmit={submit} aria-label="New leaderboard">
        <h2>New leaderboard</h2>
        <RankFields prefix="board" form={form} errors={errors} set={set} metrics={metrics} systems={systems} />
        <NameKey prefix="board" form={form} errors={errors} set={set} />
        <Field id="board-size" label="Participants (at most)" error={errors.maxParticipants}>
          <input id="board-size" type="number" min="1" max="1000" value={form.maxParticipants} required onInput={set('maxParticipants')} />
        </Field>
        <RunFields prefix="board" form={form} errors={errors} set={set} attributes={attributes} />
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create leaderboard</button>
      </form>
      <p class="error" role="alert" id="board-move-error">{moveError}</p>
      <ListBox list={list} empty="No leaderboards yet.">
        {(boards) => (
          <table class="boards">
            <thead><tr><th>Key</th><th>Name</th><th>Ranks by</th><th>Runs</th><th>Status</th><th></th></tr></thead>
            <tbody>{boards.map((b) => (
              <tr key={b.id}>
                <td><code>{b.key}</code></td><td>{b.name}</td><td>{b.rankBy}</td>
                <td>{b.runUnit === undefined ? 'one' : `every ${b.runInterval} ${b.runUnit}(s) from ${b.start}`}</td><td>{b.status}</td>
                <td class="actions">
                  <Lifecycle session={session} board={b} onDone={moved} />
                  <button type="button" class="small" aria-label={`Edit leaderboard ${b.name}`} onClick={() => setEditing(b.id)}>Edit</button>
                  <button type="button" class="small" aria-label={`Rankings of ${b.name}`} onClick={() => open(b)}>Rankings</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </ListBox>
      {edited !== undefined && (
        // A lifecycle action may move the board while it is open: what may change follows its status.
        <EditBoard key={edited.id} session={session} board={edited} metrics={metrics} systems={systems}
          attributes={attributes} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {chosen !== null && <Rankings key={`${chosen.id}-${session.tenant}-${opened}`} session={session} board={chosen} />}
    </section>
  );
}
