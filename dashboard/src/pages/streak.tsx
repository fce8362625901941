/** The streak rule (GET/PUT /admin/v1/streaks/settings): its frequency and the metrics that extend it. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { Field } from '../form.js';
import type { Metric } from './metrics.js';

interface Settings {
  frequency: 'daily' | 'weekly' | 'monthly';
  metrics: { metricId: string; threshold: number }[];
}

export function StreakPage({ session }: { session: Session }) {
  const [metrics, setMetrics] = useState<Metric[]>([]);
  const [frequency, setFrequency] = useState<Settings['frequency']>('daily');
  const [metricId, setMetricId] = useState('');
  const [threshold, setThreshold] = useState('1');
  const [state, setState] = useState<{ saved: boolean; error: string; loaded: boolean }>({ saved: false, error: '', loaded: false });
  useEffect(() => {
    void call<Metric[]>(session, 'GET', '/admin/v1/metrics?limit=100').then((r) => setMetrics(r.body.filter((m) => m.status === 'active')));
    void call<Settings | null>(session, 'GET', '/admin/v1/streaks/settings').then((r) => {
      if (r.body?.frequency) {
        setFrequency(r.body.frequency);
        setMetricId(r.body.metrics[0]?.metricId ?? '');
        setThreshold(String(r.body.metrics[0]?.threshold ?? 1));
      }
      setState((s) => ({ ...s, loaded: true }));
    }, () => setState((s) => ({ ...s, loaded: true })));
  }, [session.key]);
  const save = async (e: Event) => {
    e.preventDefault();
    setState({ saved: false, error: '', loaded: true });
    try {
      await call(session, 'PUT', '/admin/v1/streaks/settings', { frequency, metrics: [{ metricId, threshold: Number(threshold) }] });
      setState({ saved: true, error: '', loaded: true });
    } catch (err) {
      setState({ saved: false, error: (err as Error).message, loaded: true });
    }
  };
  return (
    <section>
      <h1>Streak</h1>
      <form class="card" onSubmit={save} aria-label="Streak rule">
        <h2>The streak rule</h2>
        {/* The fields appear once the rule is read: nothing typed before is overwritten by it. */}
        <fieldset disabled={!state.loaded} class="plain">
        <Field id="streak-frequency" label="Frequency">
          <select id="streak-frequency" value={frequency} onChange={(e) => setFrequency(e.currentTarget.value as Settings['frequency'])}>
            <option value="daily">Daily</option><option value="weekly">Weekly</option><option value="monthly">Monthly</option>
          </select>
        </Field>
        <Field id="streak-metric" label="Extended by the metric">
          <select id="streak-metric" value={metricId} required onChange={(e) => setMetricId(e.currentTarget.value)}>
            <option value="">Choose a metric</option>
            {metrics.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select>
        </Field>
        <Field id="streak-threshold" label="At least, per period" error={state.error}>
          <input id="streak-threshold" type="number" min="1" value={threshold} required onInput={(e) => setThreshold(e.currentTarget.value)} />
        </Field>
        <p class="muted" role="status">{state.saved ? 'Saved.' : state.loaded ? '' : 'Loading…'}</p>
        <button type="submit">Save the rule</button>
        </fieldset>
      </form>
    </section>
  );
}
