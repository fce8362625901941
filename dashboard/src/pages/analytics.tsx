/**
 * Analytics: the tenant's events, active users and achievement completions per day over a range,
 * from the archived event log (GET /admin/v1/analytics), drawn with uPlot, and the same as a table.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { call, type Session } from '../api.js';
import { Field } from '../form.js';

interface Day {
  date: string;
  events: number;
  activeUsers: number;
  completions: number;
  byMetric: Record<string, number>;
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function Chart({ days }: { days: Day[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (box.current === null) return;
    const x = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const plot = new uPlot({
      width: Math.min(1000, box.current.clientWidth || 600), height: 260,
      series: [{}, { label: 'Events', stroke: '#3f6fd8', width: 2 }, { label: 'Active users', stroke: '#2e9d62', width: 2 },
        { label: 'Completions', stroke: '#c4631d', width: 2 }],
      axes: [{}, {}],
    }, [x, days.map((d) => d.events), days.map((d) => d.activeUsers), days.map((d) => d.completions)], box.current);
    return () => plot.destroy();
  }, [days]);
  // The chart's height is held before it is drawn: nothing below moves when it appears.
  return <div class="chart" ref={box} role="img" aria-label="Events, active users and completions per day" />;
}

export function AnalyticsPage({ session }: { session: Session }) {
  const today = iso(Date.now());
  const [range, setRange] = useState({ from: iso(Date.now() - 13 * 86_400_000), to: today });
  const [days, setDays] = useState<Day[] | null>(null);
  const [error, setError] = useState('');
  const load = (r = range) => {
    setError('');
    call<{ from: string; to: string; days: Day[] }>(session, 'GET', `/admin/v1/analytics?from=${r.from}&to=${r.to}`)
      .then((a) => setDays(a.body.days), (err: Error) => { setDays([]); setError(err.message); });
  };
  useEffect(() => load(), [session.key, session.tenant]);
  const total = (days ?? []).reduce((n, d) => n + d.events, 0);
  return (
    <section>
      <h1>Analytics</h1>
      <form class="card inline" aria-label="Range" onSubmit={(e) => { e.preventDefault(); load(); }}>
        <Field id="from" label="From"><input id="from" type="date" value={range.from} onInput={(e) => setRange({ ...range, from: e.currentTarget.value })} /></Field>
        <Field id="to" label="To"><input id="to" type="date" value={range.to} onInput={(e) => setRange({ ...range, to: e.currentTarget.value })} /></Field>
        <button type="submit">Show</button>
      </form>
      <p class="error" role="alert">{error}</p>
      <div class="card chart-box">
        {days === null ? <p class="muted">Loading…</p> : total === 0 ? <p class="muted">No events archived in this range yet.</p> : <Chart days={days} />}
      </div>
      {days !== null && total > 0 && (
        <div class="table-box">
          <table class="analytics">
            <thead><tr><th>Day</th><th>Events</th><th>Active users</th><th>Completions</th><th>By metric</th></tr></thead>
            <tbody>{days.filter((d) => d.events > 0 || d.completions > 0).map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td><td>{d.events}</td><td>{d.activeUsers}</td><td>{d.completions}</td>
                <td>{Object.entries(d.byMetric).map(([k, n]) => `${k}: ${n}`).join(', ')}</td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}
