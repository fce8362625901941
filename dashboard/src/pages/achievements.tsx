/**
 * Achievements: each with its completions and rarity in the tenant chosen (the Application API's
 * list, with the admin key), and a form that creates a metric achievement through the Admin API.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { createFromForm, Field, fieldSetter, NameKeyMetric } from '../form.js';
import type { Metric } from './metrics.js';

interface Achievement {
  id: string;
  key: string;
  name: string;
  trigger: string;
  metricValue?: number | null;
  completions: number;
  rarity: number;
}

export function AchievementsPage({ session }: { session: Session }) {
  const [list, setList] = useState<Achievement[] | null>(null);
  const [metrics, setMetrics] = useState<Metric[]>([]);
  const [form, setForm] = useState({ name: '', key: '', metricId: '', metricValue: '1' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const load = () => call<Achievement[]>(session, 'GET', '/api/achievements').then((r) => setList(r.body), () => setList([]));
  useEffect(() => {
    void load();
    void call<Metric[]>(session, 'GET', '/admin/v1/metrics?limit=100').then((r) => setMetrics(r.body.filter((m) => m.status === 'active')));
  }, [session.key, session.tenant]);
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await createFromForm<Achievement>(session, '/admin/v1/achievements', {
      name: form.name, key: form.key, trigger: 'metric', metricId: form.metricId, metricValue: Number(form.metricValue),
    }, ['key', 'name', 'metricId', 'metricValue'], setErrors);
    if (created === null) return;
    setForm({ name: '', key: '', metricId: form.metricId, metricValue: '1' });
    await load();
  };

  return (
    <section>
      <h1>Achievements</h1>
      <form class="card" onSubmit={submit} aria-label="New achievement">
        <h2>New achievement</h2>
        <NameKeyMetric prefix="achievement" form={form} errors={errors} set={set} metrics={metrics} metricLabel="When the metric" />
        <Field id="achievement-value" label="Reaches the total" error={errors.metricValue}>
          <input id="achievement-value" type="number" min="1" value={form.metricValue} required onInput={set('metricValue')} />
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create achievement</button>
      </form>
      <div class="table-box">
        {list === null ? <p class="muted">Loading…</p> : list.length === 0 ? <p class="muted">No achievements yet.</p> : (
          <table class="achievements">
            <thead><tr><th>Key</th><th>Name</th><th>Trigger</th><th>Completions</th><th>Rarity</th></tr></thead>
            <tbody>{list.map((a) => (
              <tr key={a.id}>
                <td><code>{a.key}</code></td><td>{a.name}</td><td>{a.trigger}{a.metricValue ? ` ≥ ${a.metricValue}` : ''}</td>
                <td>{a.completions}</td><td>{a.rarity}%</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </div>
    </section>
  );
}
