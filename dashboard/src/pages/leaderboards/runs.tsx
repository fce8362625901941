/**
 * A leaderboard's runs as the Application API answers them (`GET /api/leaderboards/{key}?run=`):
 * one run's rankings and, once the workers finalised it, its winners (the top three); and the past
 * runs, newest first, each with its winners and a button that shows its rankings.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { LeaderboardRunView, RankingView } from '../../types.js';
import { moment } from '../../words.js';

export type Ranking = RankingView;
export type RunAnswer = LeaderboardRunView;

/** How many past runs the list shows. */
const PAST = 5;

/** The day before a YYYY-MM-DD date. */
export const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** A run of the board (`day` any of its days; '' the current one), in a group (`attribute:value`, '' for none). */
export async function fetchRun(session: Session, boardKey: string, day: string, group: string, limit: number): Promise<RunAnswer> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (day !== '') query.set('run', day);
  if (group !== '') query.set('userAttributes', group);
  return (await call<RunAnswer>(session, 'GET', `/api/leaderboards/${encodeURIComponent(boardKey)}?${query}`)).body;
}

/** The winners as a line: "1. Bob (5), 2. Ann (3)", named when the rankings know them. */
export function winnersText(a: RunAnswer): string {
  if (a.winners === null) return a.finalised === null ? 'Not final yet' : '';
  if (a.winners.length === 0) return 'Nobody ranked';
  const names = new Map(a.rankings.map((r) => [r.userId, r.userName]));
  return a.winners.map((w) => `${w.rank}. ${names.get(w.userId) ?? w.userId} (${w.value})`).join(', ');
}

export function Winners({ answer }: { answer: RunAnswer }) {
  if (answer.winners === null) return null;
  return (
    <p class="winners" aria-label="Winners">
      <strong>Winners</strong> (final top three): {winnersText(answer)}
    </p>
  );
}

/**
 * The runs before `current` (its answer: the run shown by default), newest first; the current one
 * too once it is final (a finished board's last). Walks back a run at a time, from its first day's
 * eve, until the board's start.
 */
export function PastRuns(props: { session: Session; boardKey: string; start: string; group: string; current: RunAnswer; onShow: (day: string) => void }) {
  const { session, boardKey, start, group, current } = props;
  const [runs, setRuns] = useState<RunAnswer[] | null>(null);
  useEffect(() => {
    let live = true;
    void (async () => {
      const found: RunAnswer[] = current.finalised === null ? [] : [current];
      let before = current.run;
      while (found.length < PAST && before !== '' && before > start.slice(0, 10)) {
        const a = await fetchRun(session, boardKey, dayBefore(before), group, 3).catch(() => null);
        if (a === null || a.run === '' || a.run >= before) break;
        found.push(a);
        before = a.run;
      }
      if (live) setRuns(found);
    })();
    return () => { live = false; };
  }, [boardKey, group, current.run, current.finalised, session.tenant]);
  return (
    <section aria-label="Past runs">
      <h3>Past runs</h3>
      {runs === null ? <p class="muted">Loading…</p> : runs.length === 0 ? <p class="muted">No past runs yet.</p> : (
        <div class="table-box">
          <table class="runs">
            <thead><tr><th>Run</th><th>Finalised</th><th>Winners</th><th /></tr></thead>
            <tbody>{runs.map((r) => (
              <tr key={r.run}>
                <td>{r.runEnd === null || r.runEnd === r.run ? r.run : `${r.run} to ${r.runEnd}`}</td>
                <td>{r.finalised === null ? '—' : moment(r.finalised)}</td>
                <td>{winnersText(r)}</td>
                <td><button type="button" class="small" aria-label={`Show the run from ${r.run}`} onClick={() => props.onShow(r.run)}>Show</button></td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}
