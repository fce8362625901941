/** A user's points in each system: the total, the level, the newest awards (GET /api/users/:id/points/:key?awards=5). */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { PointsAwardView, PointsSystemAdminView, UserPointsView as UserPoints } from '../../types.js';

/** What paid an award: its trigger's type ('award' once the trigger is gone). */
const paidBy = (a: PointsAwardView) => ('type' in a.trigger ? a.trigger.type : 'award');

export function PointsOfUser({ session, userId }: { session: Session; userId: string }) {
  const [rows, setRows] = useState<UserPoints[] | null>(null);
  useEffect(() => {
    void (async () => {
      const systems = (await call<PointsSystemAdminView[]>(session, 'GET', '/admin/v1/points?limit=100')).body;
      const all = await Promise.all(systems.map((p) => call<UserPoints>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/points/${encodeURIComponent(p.key)}?awards=5`)
        .then((r) => r.body, () => null)));
      setRows(all.filter((r): r is UserPoints => r !== null));
    })().catch(() => setRows([]));
  }, [userId, session.tenant]);
  if (rows === null) return <p class="muted">Loading…</p>;
  if (rows.length === 0) return <p class="muted">No points systems.</p>;
  return (
    <table class="user-points">
      <thead><tr><th>System</th><th>Total</th><th>Level</th><th>Newest awards</th></tr></thead>
      <tbody>{rows.map((p) => (
        <tr key={p.key}>
          <td>{p.name}</td><td>{p.total}</td><td>{p.level?.name ?? '—'}</td>
          <td>{p.awards.length === 0 ? '—' : p.awards.map((a) => `+${a.awarded} (${paidBy(a)}, ${a.date.slice(0, 10)})`).join(', ')}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}
