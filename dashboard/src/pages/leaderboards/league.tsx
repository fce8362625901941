/**
 * A league board's run (`GET /admin/v1/leaderboards/{id}/league?run=`): its tiers, lowest first,
 * each with its participants and cohorts and, once the run is final, how many moved up, down or
 * stayed, a page of cohorts at a time (the answer's `next`: a league of a million users has tens of
 * thousands); a cohort's participants ranked (`GET /api/leaderboards/{key}?cohort=`) from its row.
 * Read again whenever the run or the page shown changes.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { LeaderboardRunView, LeagueMovesView, LeagueSummaryView } from '../../types.js';
import { count } from '../../words.js';

/** How many of a cohort's participants its table shows. */
const SHOWN = 100;

/** A tier's or cohort's moves in words: "2 promoted, 0 demoted, 3 stayed"; "not final yet" before. */
export function movesText(moves: LeagueMovesView | null): string {
  return moves === null ? 'not final yet' : `${moves.promoted} promoted, ${moves.demoted} demoted, ${moves.stayed} stayed`;
}

/** One cohort's rankings in the run. */
function CohortRankings({ session, boardKey, run, cohort }: { session: Session; boardKey: string; run: string; cohort: string }) {
  const [answer, setAnswer] = useState<LeaderboardRunView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setError('');
    setAnswer(null);
    const query = new URLSearchParams({ cohort, run, limit: String(SHOWN) });
    call<LeaderboardRunView>(session, 'GET', `/api/leaderboards/${encodeURIComponent(boardKey)}?${query}`)
      .then((r) => setAnswer(r.body), (err: Error) => setError(err.message));
  }, [boardKey, run, cohort, session.tenant]);
  if (error !== '') return <p class="error" role="alert">{error}</p>;
  if (answer === null) return <p class="muted">Loading…</p>;
  const more = answer.participants > answer.rankings.length ? `, the first ${answer.rankings.length} shown` : '';
  return (
    <div class="table-box">
      <table class="cohort" aria-label={`Participants of ${cohort}`}>
        <caption>{`${cohort}: ${count(answer.participants, 'participant')}${more}`}</caption>
        <thead><tr><th>Rank</th><th>User</th><th>Value</th></tr></thead>
        <tbody>{answer.rankings.map((r) => <tr key={r.userId}><td>{r.rank}</td><td>{r.userName ?? r.userId}</td><td>{r.value}</td></tr>)}</tbody>
      </table>
    </div>
  );
}

export function BoardLeague({ session, board, run }: { session: Session; board: { id: string; key: string }; run: string }) {
  const [league, setLeague] = useState<LeagueSummaryView | null>(null);
  const [error, setError] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  // The page shown: null the first, else the `next` of the page before.
  const [cursor, setCursor] = useState<string | null>(null);
  useEffect(() => setCursor(null), [board.id, run, session.tenant]);
  useEffect(() => {
    setError('');
    setOpen(null);
    const query = new URLSearchParams();
    if (run !== '') query.set('run', run);
    if (cursor !== null) query.set('cursor', cursor);
    const text = query.toString();
    call<LeagueSummaryView>(session, 'GET', `/admin/v1/leaderboards/${encodeURIComponent(board.id)}/league${text === '' ? '' : `?${text}`}`)
      .then((r) => setLeague(r.body), (err: Error) => setError(err.message));
  }, [board.id, run, cursor, session.tenant]);
  if (error !== '') return <p class="error" role="alert">{error}</p>;
  if (league === null) return <p class="muted">Loading the league…</p>;
  return (
    <section aria-label="League of the run">
      <h3>League</h3>
      <p class="muted league-state">
        {`Cohorts of at most ${league.cohortSize}; ${league.finalised ? 'final: its users moved for the next run' : 'not final yet'}`}
      </p>
      <div class="table-box">
        <table class="league">
          <thead><tr><th>Tier</th><th>Cohort</th><th>Participants</th><th>Moves</th><th /></tr></thead>
          {league.tiers.map((t) => (
            <tbody key={t.key} aria-label={`Tier ${t.name}`}>
              <tr class="tier">
                <th scope="rowgroup">{t.name} <code>{t.key}</code></th><td>{count(t.cohortCount, 'cohort')}</td>
                <td>{t.participants}</td><td>{movesText(t.moves)}</td><td />
              </tr>
              {t.cohorts.map((c) => (
                <tr key={c.cohort}>
                  <td /><td><code>{c.cohort}</code></td><td>{c.participants}</td><td>{movesText(c.moves)}</td>
                  <td>
                    <button type="button" class="small" aria-label={`Participants of ${c.cohort}`} aria-expanded={open === c.cohort}
                      onClick={() => setOpen(open === c.cohort ? null : c.cohort)}>{open === c.cohort ? 'Hide' : 'Participants'}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
      {(cursor !== null || league.next !== null) && (
        <p class="pager">
          {cursor !== null && <button type="button" class="small" onClick={() => setCursor(null)}>First cohorts</button>}
          {league.next !== null && <button type="button" class="small" onClick={() => setCursor(league.next)}>Next cohorts</button>}
        </p>
      )}
      {open !== null && <CohortRankings session={session} boardKey={board.key} run={league.run} cohort={open} />}
    </section>
  );
}
