/**
 * Distributions as bars (a table, so a screen reader reads it too): the active streaks by length
 * (the analytics answer's `streaks`), and each points system's users by total (the Application
 * API's summary, with the admin key).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';

/** A bar per row, as long as its users against the most; `note` adds a column after the number (a share). */
export function Bars({ rows, label, wide = false }: { rows: { label: string; users: number; note?: string }[]; label: string; wide?: boolean }) {
  const most = Math.max(1, ...rows.map((r) => r.users));
  return (
    <table class={wide ? 'bars wide' : 'bars'} aria-label={label}>
      <tbody>{rows.map((r, i) => (
        <tr key={`${i}:${r.label}`}>
          <th scope="row">{r.label}</th>
          <td><span class="bar" style={{ width: `${(100 * r.users) / most}%` }} /></td>
          <td class="n">{r.users}</td>
          {r.note !== undefined && <td class="n">{r.note}</td>}
        </tr>
      ))}</tbody>
    </table>
  );
}

export function StreakLengths({ buckets }: { buckets: { from: number; to: number | null; users: number }[] }) {
  if (buckets.every((b) => b.users === 0)) return <p class="muted">No active streaks.</p>;
  const label = (b: { from: number; to: number | null }) => (b.to === null ? `${b.from}+` : b.from === b.to ? `${b.from}` : `${b.from}–${b.to}`);
  return <Bars label="Active streaks by length" rows={buckets.map((b) => ({ label: label(b), users: b.users }))} />;
}

interface Range {
  from: number;
  to: number;
  users: number;
}

export function PointsTotals({ session }: { session: Session }) {
  const [systems, setSystems] = useState<{ key: string; name: string; ranges: Range[] }[] | null>(null);
  useEffect(() => {
    void (async () => {
      const list = (await call<{ key: string; name: string }[]>(session, 'GET', '/admin/v1/points?limit=100')).body;
      setSystems(await Promise.all(list.map(async (p) => ({
        ...p, ranges: await call<Range[]>(session, 'GET', `/api/points/${encodeURIComponent(p.key)}/summary`).then((r) => r.body, () => []),
      }))));
    })().catch(() => setSystems([]));
  }, [session.key, session.tenant]);
  if (systems === null) return <p class="muted">Loading…</p>;
  if (systems.length === 0) return <p class="muted">No points systems.</p>;
  return (
    <>{systems.map((p) => (
      <div key={p.key}>
        <h3>{p.name}</h3>
        <Bars label={`Users of ${p.name} by total`} rows={p.ranges.map((r) => ({ label: `${r.from}–${r.to}`, users: r.users }))} />
      </div>
    ))}</>
  );
}
