/** A user's points in each system: the total, the level, the newest awards (GET /api/users/:id/points/:key?awards=5). */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { ItemTable, type Column } from '../../list.js';
import type { PointsAwardView, PointsSystemAdminView, UserPointsView } from '../../types.js';
import { signed } from '../../words.js';

/** What paid an award: its trigger's type ('award' once the trigger is gone). */
const paidBy = (a: PointsAwardView) => ('type' in a.trigger ? a.trigger.type : 'award');

const COLUMNS: Column<UserPointsView>[] = [
  { head: 'System', cell: (p) => p.name },
  { head: 'Total', cell: (p) => p.total },
  { head: 'Level', cell: (p) => p.level?.name ?? '—' },
  { head: 'Newest awards', cell: (p) => (p.awards.length === 0 ? '—' : p.awards.map((a) => `${signed(a.awarded)} (${paidBy(a)}, ${a.date.slice(0, 10)})`).join(', ')) },
];

export function PointsOfUser({ session, userId }: { session: Session; userId: string }) {
  const [rows, setRows] = useState<UserPointsView[] | null>(null);
  const load = async () => {
    try {
      const systems = (await call<PointsSystemAdminView[]>(session, 'GET', '/admin/v1/points?limit=100')).body;
      const all = await Promise.all(systems.map((p) => call<UserPointsView>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/points/${encodeURIComponent(p.key)}?awards=5`)
        .then((r) => r.body, () => null)));
      setRows(all.filter((r): r is UserPointsView => r !== null));
    } catch {
      setRows([]);
    }
  };
  useEffect(() => { void load(); }, [userId, session.tenant]);
  return <ItemTable list={{ items: rows, error: '', reload: load }} empty="No points systems." class="user-points" columns={COLUMNS} />;
}
