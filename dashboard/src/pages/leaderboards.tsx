/** Leaderboards: the list, a form that creates one on a metric, and the rankings of the one chosen. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { createFromForm, Field, fieldSetter, NameKeyMetric } from '../form.js';
import type { Metric } from './metrics.js';

interface Board {
  id: string;
  key: string;
  name: string;
  status: string;
  rankBy: string;
  maxParticipants: number;
}

interface Ranking {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
}

function Rankings({ session, board }: { session: Session; board: Board }) {
  const [rows, setRows] = useState<Ranking[] | null>(null);
  const [error, setError] = useState('');
  const load = () => {
    setError('');
    call<{ rankings: Ranking[] }>(session, 'GET', `/api/leaderboards/${encodeURIComponent(board.key)}?limit=100`)
      .then((r) => setRows(r.body.rankings), (err: Error) => { setRows([]); setError(err.message); });
  };
  useEffect(load, [board.key, session.tenant]);
  return (
    <div class="card" aria-label={`Rankings of ${board.name}`}>
      <h2>Rankings: {board.name} <button type="button" class="small" onClick={load}>Refresh</button></h2>
      <p class="error" role="alert">{error}</p>
      {rows === null ? <p class="muted">Loading…</p> : rows.length === 0 ? <p class="muted">Nobody ranks yet.</p> : (
        <table class="rankings">
          <thead><tr><th>Rank</th><th>User</th><th>Value</th></tr></thead>
          <tbody>{rows.map((r) => <tr key={r.userId}><td>{r.rank}</td><td>{r.userName ?? r.userId}</td><td>{r.value}</td></tr>)}</tbody>
        </table>
      )}
    </div>
  );
}

export function LeaderboardsPage({ session }: { session: Session }) {
  const [boards, setBoards] = useState<Board[] | null>(null);
  const [metrics, setMetrics] = useState<Metric[]>([]);
  const [chosen, setChosen] = useState<Board | null>(null);
  const [form, setForm] = useState({ name: '', key: '', metricId: '', maxParticipants: '100' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const load = () => call<Board[]>(session, 'GET', '/admin/v1/leaderboards?limit=100').then((r) => setBoards(r.body), () => setBoards([]));
  useEffect(() => {
    void load();
    void call<Metric[]>(session, 'GET', '/admin/v1/metrics?limit=100').then((r) => setMetrics(r.body.filter((m) => m.status === 'active')));
  }, [session.key, session.tenant]);
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await createFromForm<Board>(session, '/admin/v1/leaderboards', {
      name: form.name, key: form.key, rankBy: 'metric', metricId: form.metricId, maxParticipants: Number(form.maxParticipants), status: 'active',
    }, ['key', 'name', 'metricId', 'maxParticipants'], setErrors);
    if (created === null) return;
    setForm({ name: '', key: '', metricId: form.metricId, maxParticipants: '100' });
    await load();
    setChosen(created);
  };

  return (
    <section>
      <h1>Leaderboards</h1>
      <form class="card" onSubmit={submit} aria-label="New leaderboard">
        <h2>New leaderboard</h2>
        <NameKeyMetric prefix="board" form={form} errors={errors} set={set} metrics={metrics} metricLabel="Ranks the metric" />
        <Field id="board-size" label="Participants (at most)" error={errors.maxParticipants}>
          <input id="board-size" type="number" min="1" value={form.maxParticipants} required onInput={set('maxParticipants')} />
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create leaderboard</button>
      </form>
      <div class="table-box">
        {boards === null ? <p class="muted">Loading…</p> : boards.length === 0 ? <p class="muted">No leaderboards yet.</p> : (
          <table>
            <thead><tr><th>Key</th><th>Name</th><th>Ranks by</th><th>Status</th><th></th></tr></thead>
            <tbody>{boards.map((b) => (
              <tr key={b.id}>
                <td><code>{b.key}</code></td><td>{b.name}</td><td>{b.rankBy}</td><td>{b.status}</td>
                <td><button type="button" class="small" onClick={() => setChosen(b)}>Rankings</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </div>
      {chosen !== null && <Rankings session={session} board={chosen} />}
    </section>
  );
}
