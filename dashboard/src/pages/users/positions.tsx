/** A user's place on each live leaderboard: rank and value in the current run (GET /api/users/:id/leaderboards/:key). */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { LeaderboardAdminView, UserLeaderboardView as Position } from '../../types.js';

export function PositionsOfUser({ session, userId }: { session: Session; userId: string }) {
  const [rows, setRows] = useState<Position[] | null>(null);
  useEffect(() => {
    void (async () => {
      const boards = (await call<LeaderboardAdminView[]>(session, 'GET', '/admin/v1/leaderboards?limit=100')).body
        .filter((b) => b.status !== 'inactive');
      const all = await Promise.all(boards.map((b) => call<Position>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/leaderboards/${encodeURIComponent(b.key)}?numEvents=0`)
        .then((r) => r.body, () => null)));
      setRows(all.filter((r): r is Position => r !== null));
    })().catch(() => setRows([]));
  }, [userId, session.tenant]);
  if (rows === null) return <p class="muted">Loading…</p>;
  if (rows.length === 0) return <p class="muted">No live leaderboards.</p>;
  return (
    <table class="user-positions">
      <thead><tr><th>Leaderboard</th><th>Rank</th><th>Value</th><th>Run</th></tr></thead>
      <tbody>{rows.map((p) => (
        <tr key={p.key}><td>{p.name}</td><td>{p.rank ?? 'not ranked'}</td><td>{p.value ?? '—'}</td><td>{p.run}</td></tr>
      ))}</tbody>
    </table>
  );
}
