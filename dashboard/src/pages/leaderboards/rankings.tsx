/**
 * A leaderboard's rankings (the Application API, with the admin key): the current run, or the run
 * of any day (a past run's rankings are kept, finalised with their winners), in one breakdown group
 * when the board has them; the run's winners once final, and the past runs with theirs
 * (leaderboards/runs.tsx); a league board's tiers and cohorts in the run shown (leaderboards/league.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { Field } from '../../form.js';
import type { LeaderboardAdminView } from '../../types.js';
import { count, moment } from '../../words.js';
import { GroupFields, groupQuery, useSeenValues, type GroupAttribute } from './groups.js';
import { dayBefore, fetchRun, PastRuns, Winners, type RunAnswer } from './runs.js';
import { BoardLeague } from './league.js';
import { BoardStats } from './stats.js';

export type Board = LeaderboardAdminView;

export function Rankings({ session, board, groupBy }: { session: Session; board: Board; groupBy: GroupAttribute[] }) {
  const [answer, setAnswer] = useState<RunAnswer | null>(null);
  // The current run's answer (the past runs walk back from it), in the group it was read in.
  const [current, setCurrent] = useState<{ answer: RunAnswer; group: string } | null>(null);
  const [run, setRun] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  // What the user typed in the group fields, and on which board of which tenant: kept when the
  // values seen arrive after it (a slow read must not take back what was typed).
  const typed = useRef<{ board: string; tenant: string; values: Record<string, string> } | null>(null);
  const type = (v: Record<string, string>) => {
    typed.current = { board: board.key, tenant: session.tenant, values: v };
    setValues(v);
  };
  const [error, setError] = useState('');
  const seen = useSeenValues(session, groupBy);
  // The group asked for: '' on a board without groups; null while a grouped board's is not chosen.
  const group = groupBy.length === 0 ? '' : groupQuery(groupBy, values);
  const load = (day = run, applied = group) => {
    setError('');
    if (applied === null) return setAnswer(null);
    fetchRun(session, board.key, day, applied, 100).then((a) => {
      setAnswer(a);
      if (day === '') setCurrent({ answer: a, group: applied });
      else if (current?.group !== applied) fetchRun(session, board.key, '', applied, 3).then((c) => setCurrent({ answer: c, group: applied }), () => setCurrent(null));
    // A refused run (none on that day) keeps the run shown, the message under the day.
    }, (err: Error) => { setAnswer((a) => a ?? { rankings: [], participants: 0, run: '', runEnd: null, finalised: null, winners: null }); setError(err.message); });
  };
  useEffect(() => {
    if (seen === null) return;
    // A grouped board opens on the first group seen of each attribute, but what was typed already.
    const mine = typed.current !== null && typed.current.board === board.key && typed.current.tenant === session.tenant ? typed.current.values : {};
    const first = Object.fromEntries(groupBy.map((a) => [a.key, mine[a.key] || (seen[a.key]?.[0] ?? '')]));
    setValues(first);
    load(run, groupBy.length === 0 ? '' : groupQuery(groupBy, first));
  }, [board.key, session.tenant, seen]);
  const show = (day: string) => {
    setRun(day);
    load(day);
  };
  const choose = (e: Event) => { e.preventDefault(); load(); };
  // The board's first run has none before it.
  const first = answer === null || answer.run === '' || answer.run <= board.start.slice(0, 10);
  const previous = () => { if (answer !== null && !first) show(dayBefore(answer.run)); };
  const rows = group === null ? null : answer?.rankings ?? null;
  const names = groupBy.map((a) => a.name).join(' and ');
  return (
    <div class="card" aria-label={`Rankings of ${board.name}`}>
      <h2>Rankings: {board.name}</h2>
      <form class="row" onSubmit={choose} aria-label="Choose the run">
        <Field id="run-day" label="Run of the day (empty: the current one)" error={error}>
          <input id="run-day" type="date" value={run} min={board.start.slice(0, 10)} aria-describedby="run-day-error" onInput={(e) => setRun(e.currentTarget.value)} />
        </Field>
        {seen !== null && <GroupFields attributes={groupBy} seen={seen} values={values} onChange={type} />}
        <button type="submit" disabled={group === null}>Refresh</button>
        {board.runUnit !== undefined && <button type="button" disabled={first} title={first ? 'This is the board\'s first run' : undefined} onClick={previous}>Previous run</button>}
      </form>
      <p class="muted" role="status">
        {group === null && seen !== null ? `Choose a group: this board ranks its users apart by ${names}.` : answer === null ? 'Loading…' : answer.run === '' ? '' : `Run from ${answer.run}${answer.runEnd === null ? '' : ` to ${answer.runEnd}`}${answer.finalised === null ? '' : `, finalised ${moment(answer.finalised)}`}; ${count(answer.participants, 'participant')}${answer.participants > (rows?.length ?? 0) && rows !== null && rows.length > 0 ? `, the first ${rows.length} shown` : ''}`}
      </p>
      {answer !== null && group !== null && <Winners answer={answer} />}
      {group === null && seen !== null ? null : rows === null ? <p class="muted">Loading…</p> : rows.length === 0 ? <p class="muted">Nobody ranks yet.</p> : (
        <table class="rankings">
          <thead><tr><th>Rank</th><th>User</th><th>Value</th></tr></thead>
          <tbody>{rows.map((r) => <tr key={r.userId}><td>{r.rank}</td><td>{r.userName ?? r.userId}</td><td>{r.value}</td></tr>)}</tbody>
        </table>
      )}
      {answer !== null && answer.run !== '' && <BoardStats session={session} boardId={board.id} run={answer.run} />}
      {board.league !== undefined && answer !== null && answer.run !== '' && <BoardLeague session={session} board={board} run={answer.run} />}
      {current !== null && group !== null && (
        <PastRuns session={session} boardKey={board.key} start={board.start} group={current.group} current={current.answer} onShow={show} />
      )}
    </div>
  );
}
