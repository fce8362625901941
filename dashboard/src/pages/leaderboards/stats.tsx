/**
 * A board run's statistics (`GET /admin/v1/leaderboards/{id}/stats?run=`): its participants and
 * rank changes in a line, its score distribution and the participants of the runs before it as
 * bars. Read again whenever the run shown changes.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { LeaderboardStatsView } from '../../types.js';
import { Bars } from '../analytics/distributions.js';
import { count } from '../../words.js';

/** A bucket's values in words: "3", "10 to 11", "0.5 to 1" (the last bucket holds its `to` too). */
export function bucketText(b: { from: number; to: number }, last: boolean): string {
  const n = (x: number) => x.toLocaleString('en', { maximumFractionDigits: 2 });
  if (!Number.isInteger(b.from) || !Number.isInteger(b.to)) return `${n(b.from)} to ${n(b.to)}`;
  const highest = last ? b.to : b.to - 1;
  return highest === b.from ? n(b.from) : `${n(b.from)} to ${n(highest)}`;
}

export function BoardStats({ session, boardId, run }: { session: Session; boardId: string; run: string }) {
  const [stats, setStats] = useState<LeaderboardStatsView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setError('');
    const query = run === '' ? '' : `?run=${run}`;
    call<LeaderboardStatsView>(session, 'GET', `/admin/v1/leaderboards/${encodeURIComponent(boardId)}/stats${query}`)
      .then((r) => setStats(r.body), (err: Error) => setError(err.message));
  }, [boardId, run, session.tenant]);
  if (error !== '') return <p class="error" role="alert">{error}</p>;
  if (stats === null) return <p class="muted">Loading the statistics…</p>;
  const c = stats.rankChanges;
  const groups = stats.groups === 0 ? '' : ` in ${count(stats.groups, 'group')}`;
  return (
    <section aria-label="Statistics of the run">
      <h3>Statistics of the run</h3>
      <p class="changes">
        {`${count(stats.participants, 'participant')}${groups}; ${count(c.entered, 'entry', 'entries')}, ` +
          `${count(c.moved, 'move')} by a user's own value, ${count(c.pushedOut, 'user')} pushed out of the full board`}
      </p>
      {stats.distribution.length > 0 && (
        <Bars label="Values" rows={stats.distribution.map((b, i) => ({ label: bucketText(b, i === stats.distribution.length - 1), users: b.participants }))} />
      )}
      {stats.runs.length > 1 && <Bars label="Participants per run" rows={stats.runs.map((r) => ({ label: r.run, users: r.participants }))} />}
    </section>
  );
}
