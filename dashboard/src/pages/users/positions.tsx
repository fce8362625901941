/** A user's place on each live leaderboard: rank and value in the current run (GET /api/users/:id/leaderboards/:key). */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { ItemTable, type Column } from '../../list.js';
import type { LeaderboardAdminView, UserLeaderboardView as Position } from '../../types.js';

const COLUMNS: Column<Position>[] = [
  { head: 'Leaderboard', cell: (p) => p.name },
  { head: 'Rank', cell: (p) => p.rank ?? 'not ranked' },
  { head: 'Value', cell: (p) => p.value ?? '—' },
  { head: 'Run', cell: (p) => p.run },
];

export function PositionsOfUser({ session, userId }: { session: Session; userId: string }) {
  const [rows, setRows] = useState<Position[] | null>(null);
  const load = async () => {
    try {
      const boards = (await call<LeaderboardAdminView[]>(session, 'GET', '/admin/v1/leaderboards?limit=100')).body
        .filter((b) => b.status !== 'inactive');
      const all = await Promise.all(boards.map((b) => call<Position>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/leaderboards/${encodeURIComponent(b.key)}?numEvents=0`)
        .then((r) => r.body, () => null)));
      setRows(all.filter((r): r is Position => r !== null));
    } catch {
      setRows([]);
    }
  };
  useEffect(() => { void load(); }, [userId, session.tenant]);
  return <ItemTable list={{ items: rows, error: '', reload: load }} empty="No live leaderboards." class="user-positions" columns={COLUMNS} />;
}
