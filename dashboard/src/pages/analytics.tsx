/**
 * Analytics over a range of days (GET /admin/v1/analytics, from the rollups of the event log): events,
 * completions, users (active, weekly active, new) and each metric's events per day, drawn with uPlot
 * (analytics/chart.tsx) and as a table; each achievement's completion in the range
 * (analytics/completion.tsx); the 14-day retention of the control group against the rest; and how
 * the active streaks and each points system's totals spread now (analytics/distributions.tsx).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { fieldOf } from '../form.js';
import { useList } from '../list.js';
import type { AnalyticsDay as Day, AnalyticsView as Analytics, MetricView } from '../types.js';
import { Chart } from './analytics/chart.js';
import { AchievementCompletion } from './analytics/completion.js';
import { PointsTotals, StreakLengths } from './analytics/distributions.js';
import { RangeForm } from './analytics/range.js';
import { RetentionTable } from './analytics/retention.js';

/** The metrics' lines' colours, in turn. */
const PALETTE = ['#3f6fd8', '#c4631d', '#2e9d62', '#7b4fc4', '#c23a6b', '#1d8f9c', '#8a7a12', '#5d6675'];

function Charts({ days, metricName }: { days: Day[]; metricName: (key: string) => string }) {
  const dates = useMemo(() => days.map((d) => d.date), [days]);
  const activity = useMemo(() => [
    { label: 'Events', stroke: '#3f6fd8', values: days.map((d) => d.events) },
    { label: 'Completions', stroke: '#c4631d', values: days.map((d) => d.completions) },
  ], [days]);
  const users = useMemo(() => [
    { label: 'Active users', stroke: '#2e9d62', values: days.map((d) => d.activeUsers) },
    { label: 'Weekly active users', stroke: '#7b4fc4', values: days.map((d) => d.weeklyActiveUsers) },
    { label: 'New users', stroke: '#c23a6b', values: days.map((d) => d.newUsers) },
  ], [days]);
  const metrics = useMemo(() => {
    const keys = [...new Set(days.flatMap((d) => Object.keys(d.byMetric)))].sort();
    return keys.map((k, i) => ({ label: metricName(k), stroke: PALETTE[i % PALETTE.length], values: days.map((d) => d.byMetric[k] ?? 0) }));
  }, [days, metricName]);
  return (
    <>
      <Chart dates={dates} lines={activity} title="Events and achievement completions per day" yLabel="Events or completions" />
      <Chart dates={dates} lines={users} title="Active, weekly active and new users per day" yLabel="Users" />
      <Chart dates={dates} lines={metrics} title="Events per day by metric" yLabel="Events" />
    </>
  );
}

export function AnalyticsPage({ session }: { session: Session }) {
  // Empty until the first answer: the Admin API's default range, the 14 days up to today on the
  // server's clock (not the browser's, which may stand elsewhere: another zone, a manual clock).
  const [range, setRange] = useState({ from: '', to: '' });
  const [data, setData] = useState<Analytics | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const metrics = useList<MetricView>(session, '/admin/v1/metrics?limit=100').items;
  const metricName = useMemo(() => {
    const names = new Map((metrics ?? []).map((m) => [m.key, m.name]));
    return (key: string) => names.get(key) ?? key;
  }, [metrics]);
  // A refused range keeps the figures shown (of the range before), its message under its field.
  const load = (r = range) => {
    setErrors({});
    const query = new URLSearchParams(Object.entries(r).filter(([, v]) => v !== '')).toString();
    call<Analytics>(session, 'GET', `/admin/v1/analytics${query === '' ? '' : `?${query}`}`)
      .then((a) => {
        setData(a.body);
        setRange({ from: a.body.from, to: a.body.to });
      }, (err: Error) => setErrors({ [fieldOf(err.message, ['from', 'to']) ?? 'form']: err.message }));
  };
  useEffect(() => load(), [session.key, session.tenant]);
  const days = data?.days ?? null;
  // Nothing shown yet, and the Admin API refused: say so where the figures would be.
  const pending = <p class="muted">{Object.keys(errors).length > 0 ? 'Not available: see the message above.' : 'Loading…'}</p>;
  const total = (days ?? []).reduce((n, d) => n + d.events + d.newUsers, 0);
  return (
    <section>
      <h1>Analytics</h1>
      <RangeForm range={range} errors={errors} onChange={setRange} onSubmit={() => load()} />
      <p class="error" role="alert">{errors.form ?? ''}</p>
      <div class="card chart-box">
        {/* An empty range draws its days at 0 too: the box is filled as with figures, and the days are there. */}
        {days === null ? pending : <>{total === 0 && <p class="muted">No events archived in this range yet.</p>}<Charts days={days} metricName={metricName} /></>}
      </div>
      {days !== null && total > 0 && (
        <div class="table-box">
          <table class="analytics">
            <thead><tr><th>Day</th><th>Events</th><th>Active users</th><th>Weekly active</th><th>New users</th><th>Completions</th><th>By metric</th></tr></thead>
            <tbody>{days.filter((d) => d.events > 0 || d.completions > 0 || d.newUsers > 0).map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td><td>{d.events}</td><td>{d.activeUsers}</td><td>{d.weeklyActiveUsers}</td><td>{d.newUsers}</td><td>{d.completions}</td>
                <td>{Object.entries(d.byMetric).map(([k, n]) => `${metricName(k)}: ${n}`).join(', ')}</td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
      <section class="card" aria-label="Achievement completion">
        <h2>Achievement completion</h2>
        {data === null ? pending : <AchievementCompletion achievements={data.achievements} activeUsers={data.activeUsers} />}
      </section>
      <section class="card" aria-label="Retention">
        <h2>14-day retention</h2>
        {data === null ? pending : <RetentionTable retention={data.retention} />}
      </section>
      <section class="card" aria-label="Streak lengths">
        <h2>Active streaks by length (now)</h2>
        {data === null ? pending : <StreakLengths session={session} buckets={data.streaks} />}
      </section>
      <section class="card" aria-label="Points totals">
        <h2>Users by points total (now)</h2>
        <PointsTotals session={session} />
      </section>
    </section>
  );
}
