/** A user's points in each system: the total, the level, the newest awards (GET /api/users/:id/points/:key?awards=5). */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';

interface UserPoints {
  key: string;
  name: string;
  total: number;
  level: { name: string; points: number } | null;
  awards: { id: string; awarded: number; date: string; total: number; trigger?: { type: string } | null }[];
}

export function PointsOfUser({ session, userId }: { session: Session; userId: string }) {
  const [rows, setRows] = useState<UserPoints[] | null>(null);
  useEffect(() => {
    void (async () => {
      const systems = (await call<{ key: string }[]>(session, 'GET', '/admin/v1/points?limit=100')).body;
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
          <td>{p.awards.length === 0 ? '—' : p.awards.map((a) => `+${a.awarded} (${a.trigger?.type ?? 'award'}, ${a.date.slice(0, 10)})`).join(', ')}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}
