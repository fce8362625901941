/**
 * Distributions as bars (a table, so a screen reader reads it too): the active streaks by length
 * (the analytics answer's `streaks`), and each points system's users by total (the Application
 * API's summary, with the admin key).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { PointsRange, PointsSystemAdminView, StreakBucket, StreakSettingsView } from '../../types.js';
import { count, periodOf, pointsRange, streakRange } from '../../words.js';

/** A bar per row, as long as its users against the most; `note` adds a column after the number (a share). */
export function Bars({ rows, label, wide = false }: { rows: { label: string; users: number; note?: string }[]; label: string; wide?: boolean }) {
  const most = Math.max(1, ...rows.map((r) => r.users));
  return (
    <table class={wide ? 'bars wide' : 'bars'} aria-label={label}>
      <tbody>{rows.map((r, i) => (
        <tr key={`${i}:${r.label}`}>
          <th scope="row">{r.label}</th>
          <td><span class="bar" style={{ width: `${(100 * r.users) / most}%` }} /></td>
          <td class="n">{count(r.users, 'user')}</td>
          {r.note !== undefined && <td class="n">{r.note}</td>}
        </tr>
      ))}</tbody>
    </table>
  );
}

/** The active streaks by length, in the streak's periods (its frequency read from the streak rule). */
export function StreakLengths({ session, buckets }: { session: Session; buckets: StreakBucket[] }) {
  const [period, setPeriod] = useState('day');
  useEffect(() => {
    void call<StreakSettingsView>(session, 'GET', '/admin/v1/streaks/settings').then((r) => setPeriod(periodOf(r.body.frequency)), () => undefined);
  }, [session.key]);
  if (buckets.every((b) => b.users === 0)) return <p class="muted">No active streaks.</p>;
  return <Bars label="Active streaks by length" rows={buckets.map((b) => ({ label: streakRange(b, period), users: b.users }))} />;
}

export function PointsTotals({ session }: { session: Session }) {
  const [systems, setSystems] = useState<{ key: string; name: string; ranges: PointsRange[] }[] | null>(null);
  useEffect(() => {
    void (async () => {
      const list = (await call<PointsSystemAdminView[]>(session, 'GET', '/admin/v1/points?limit=100')).body;
      setSystems(await Promise.all(list.map(async (p) => ({
        ...p, ranges: await call<PointsRange[]>(session, 'GET', `/api/points/${encodeURIComponent(p.key)}/summary`).then((r) => r.body, () => []),
      }))));
    })().catch(() => setSystems([]));
  }, [session.key, session.tenant]);
  if (systems === null) return <p class="muted">Loading…</p>;
  if (systems.length === 0) return <p class="muted">No points systems.</p>;
  return (
    <>{systems.map((p) => (
      <div key={p.key}>
        <h3>{p.name}</h3>
        <Bars label={`Users of ${p.name} by total`} rows={p.ranges.map((r) => ({ label: pointsRange(r), users: r.users }))} />
      </div>
    ))}</>
  );
}
