/**
 * Leaderboards: the list with each one's lifecycle actions (leaderboards/lifecycle.tsx), a form that
 * creates one on a metric (perpetual or repeating, optionally grouped by a user attribute), and the
 * rankings of the one chosen, of any run (leaderboards/rankings.tsx).
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { createFromForm, Field, fieldSetter, NameKey, NameKeyMetric } from '../form.js';
import { ListBox, useActiveMetrics, useList } from '../list.js';
import type { Attribute } from './attributes.js';
import { Lifecycle } from './leaderboards/lifecycle.js';
import { Rankings, type Board } from './leaderboards/rankings.js';

const EMPTY = { rankBy: 'metric', name: '', key: '', metricId: '', pointsSystemId: '', maxParticipants: '100', runUnit: '', runInterval: '1', start: '', breakdown: '' };

export function LeaderboardsPage({ session }: { session: Session }) {
  const list = useList<Board>(session, '/admin/v1/leaderboards?limit=100');
  const metrics = useActiveMetrics(session);
  const systems = useList<{ id: string; name: string }>(session, '/admin/v1/points?limit=100').items ?? [];
  const attributes = (useList<Attribute>(session, '/admin/v1/attributes?limit=100').items ?? []).filter((a) => a.type === 'user');
  const [chosen, setChosen] = useState<Board | null>(null);
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
    setChosen(created);
  };
  const moved = async (error: string) => {
    setMoveError(error);
    await list.reload();
  };

  return (
    <section>
      <h1>Leaderboards</h1>
      <form class="card" onSubmit={submit} aria-label="New leaderboard">
        <h2>New leaderboard</h2>
        <Field id="board-rank-by" label="Ranks users by" error={errors.rankBy}>
          <select id="board-rank-by" value={form.rankBy} onChange={set('rankBy')}>
            <option value="metric">a metric's total</option>
            <option value="points">a points system's total</option>
            <option value="streak">their streak's length</option>
          </select>
        </Field>
        {form.rankBy === 'metric'
          ? <NameKeyMetric prefix="board" form={form} errors={errors} set={set} metrics={metrics} metricLabel="Ranks the metric" />
          : <NameKey prefix="board" form={form} errors={errors} set={set} />}
        {form.rankBy === 'points' && (
          <Field id="board-points" label="Points system" error={errors.pointsSystemId}>
            <select id="board-points" value={form.pointsSystemId} required onChange={set('pointsSystemId')}>
              <option value="">Choose a points system</option>
              {systems.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </select>
          </Field>
        )}
        <Field id="board-size" label="Participants (at most)" error={errors.maxParticipants}>
          <input id="board-size" type="number" min="1" value={form.maxParticipants} required onInput={set('maxParticipants')} />
        </Field>
        <div class="row">
          <Field id="board-repeat" label="Starts a new run" error={errors.runUnit}>
            <select id="board-repeat" value={form.runUnit} onChange={set('runUnit')}>
              <option value="">Never (one run)</option><option value="day">Every N days</option>
              <option value="month">Every N months</option><option value="year">Every N years</option>
            </select>
          </Field>
          <Field id="board-interval" label="N" error={errors.runInterval}>
            <input id="board-interval" type="number" min="1" value={form.runInterval} disabled={form.runUnit === ''} onInput={set('runInterval')} />
          </Field>
          <Field id="board-start" label="Starts on (optional)" error={errors.start}>
            <input id="board-start" type="date" value={form.start} onInput={set('start')} />
          </Field>
          <Field id="board-breakdown" label="Groups users by" error={errors.breakdownAttributes}>
            <select id="board-breakdown" value={form.breakdown} onChange={set('breakdown')}>
              <option value="">No groups</option>
              {attributes.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
          </Field>
        </div>
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
                  <button type="button" class="small" onClick={() => setChosen(b)}>Rankings</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </ListBox>
      {chosen !== null && <Rankings key={`${chosen.id}-${session.tenant}`} session={session} board={chosen} />}
    </section>
  );
}
