/**
 * A leaderboard's rankings (the Application API, with the admin key): the current run, or the run
 * of any day (a past run's rankings are kept, finalised with their winners), in one breakdown group
 * when the board has them.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { Field } from '../../form.js';

export interface Board {
  id: string;
  key: string;
  name: string;
  status: string;
  rankBy: string;
  start: string;
  maxParticipants: number;
  runUnit?: string;
  runInterval?: number;
  breakdownAttributes: string[];
  description?: string;
  metricId?: string;
  pointsSystemId?: string;
  end?: string;
  startTime?: string;
  endTime?: string;
}

interface Ranking {
  userId: string;
  userName: string | null;
  rank: number;
  value: number;
}

interface Answer {
  rankings: Ranking[];
  run: string;
  runEnd: string | null;
  finalised: string | null;
}

/** The day before a YYYY-MM-DD date. */
const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export function Rankings({ session, board }: { session: Session; board: Board }) {
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [run, setRun] = useState('');
  const [group, setGroup] = useState('');
  const [error, setError] = useState('');
  const load = (day = run) => {
    setError('');
    const query = new URLSearchParams({ limit: '100' });
    if (day !== '') query.set('run', day);
    if (group.trim() !== '') query.set('userAttributes', group.trim());
    call<Answer>(session, 'GET', `/api/leaderboards/${encodeURIComponent(board.key)}?${query}`)
      .then((r) => setAnswer(r.body), (err: Error) => { setAnswer({ rankings: [], run: day, runEnd: null, finalised: null }); setError(err.message); });
  };
  useEffect(() => load(), [board.key, session.tenant]);
  const choose = (e: Event) => { e.preventDefault(); load(); };
  const previous = () => {
    if (answer === null || answer.run === '') return;
    const day = dayBefore(answer.run);
    setRun(day);
    load(day);
  };
  const rows = answer?.rankings ?? null;
  return (
    <div class="card" aria-label={`Rankings of ${board.name}`}>
      <h2>Rankings: {board.name}</h2>
      <form class="row" onSubmit={choose} aria-label="Choose the run">
        <Field id="run-day" label="Run of the day (empty: the current one)" error={error}>
          <input id="run-day" type="date" value={run} onInput={(e) => setRun(e.currentTarget.value)} />
        </Field>
        {board.breakdownAttributes.length > 0 && (
          <Field id="run-group" label="Group (attribute:value)">
            <input id="run-group" value={group} placeholder="plan:pro" onInput={(e) => setGroup(e.currentTarget.value)} />
          </Field>
        )}
        <button type="submit">Refresh</button>
        {board.runUnit !== undefined && <button type="button" onClick={previous}>Previous run</button>}
      </form>
      <p class="muted" role="status">
        {answer === null ? 'Loading…' : answer.run === '' ? '' : `Run from ${answer.run}${answer.runEnd === null ? '' : ` to ${answer.runEnd}`}${answer.finalised === null ? '' : `, finalised ${answer.finalised}`}`}
      </p>
      {rows === null ? <p class="muted">Loading…</p> : rows.length === 0 ? <p class="muted">Nobody ranks yet.</p> : (
        <table class="rankings">
          <thead><tr><th>Rank</th><th>User</th><th>Value</th></tr></thead>
          <tbody>{rows.map((r) => <tr key={r.userId}><td>{r.rank}</td><td>{r.userName ?? r.userId}</td><td>{r.value}</td></tr>)}</tbody>
        </table>
      )}
    </div>
  );
}
