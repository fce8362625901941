/**
 * Points systems: each with how the tenant's users spread over its totals (the Application API's
 * summary, with the admin key), a form that creates one awarding points for a metric, and the
 * triggers, levels and boosts of the one chosen (points/).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { createFromForm, Field, fieldSetter, NameKeyMetric } from '../form.js';
import type { Metric } from './metrics.js';
import { Boosts } from './points/boosts.js';
import { Levels } from './points/levels.js';
import { Triggers } from './points/triggers.js';

interface System {
  id: string;
  key: string;
  name: string;
  status: string;
}

interface Range {
  from: number;
  to: number;
  users: number;
}

function Summary({ session, system }: { session: Session; system: System }) {
  const [ranges, setRanges] = useState<Range[] | null>(null);
  useEffect(() => {
    void call<Range[]>(session, 'GET', `/api/points/${encodeURIComponent(system.key)}/summary`).then((r) => setRanges(r.body), () => setRanges([]));
  }, [system.key, session.tenant]);
  if (ranges === null) return <span class="muted">…</span>;
  const users = ranges.filter((r) => r.users > 0);
  return <span>{users.length === 0 ? 'nobody yet' : users.map((r) => `${r.from}–${r.to}: ${r.users}`).join(', ')}</span>;
}

export function PointsPage({ session }: { session: Session }) {
  const [systems, setSystems] = useState<System[] | null>(null);
  const [metrics, setMetrics] = useState<Metric[]>([]);
  const [form, setForm] = useState({ name: '', key: '', metricId: '', points: '10' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [chosen, setChosen] = useState<System | null>(null);
  const load = () => call<System[]>(session, 'GET', '/admin/v1/points?limit=100').then((r) => setSystems(r.body), () => setSystems([]));
  useEffect(() => {
    void load();
    void call<Metric[]>(session, 'GET', '/admin/v1/metrics?limit=100').then((r) => setMetrics(r.body.filter((m) => m.status === 'active')));
  }, [session.key, session.tenant]);
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await createFromForm<System>(session, '/admin/v1/points', {
      name: form.name, key: form.key,
      triggers: [{ type: 'metric', metricId: form.metricId, metricThreshold: 1, points: Number(form.points), status: 'active' }],
    }, ['key', 'name', 'metricId', 'points'], setErrors);
    if (created === null) return;
    setForm({ name: '', key: '', metricId: form.metricId, points: '10' });
    await load();
  };

  return (
    <section>
      <h1>Points</h1>
      <form class="card" onSubmit={submit} aria-label="New points system">
        <h2>New points system</h2>
        <NameKeyMetric prefix="points" form={form} errors={errors} set={set} metrics={metrics} metricLabel="Awards points for the metric" />
        <Field id="points-per" label="Points per unit" error={errors.points}>
          <input id="points-per" type="number" value={form.points} required onInput={set('points')} />
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create points system</button>
      </form>
      <div class="table-box">
        {systems === null ? <p class="muted">Loading…</p> : systems.length === 0 ? <p class="muted">No points systems yet.</p> : (
          <table class="points">
            <thead><tr><th>Key</th><th>Name</th><th>Status</th><th>Users by total</th><th></th></tr></thead>
            <tbody>{systems.map((p) => (
              <tr key={p.id}><td><code>{p.key}</code></td><td>{p.name}</td><td>{p.status}</td><td><Summary session={session} system={p} /></td>
                <td><button type="button" class="small" aria-label={`Configure ${p.name}`} onClick={() => setChosen(p)}>Configure</button></td></tr>
            ))}</tbody>
          </table>
        )}
      </div>
      {chosen !== null && (
        <section key={chosen.id} aria-label={`Configuration of ${chosen.name}`}>
          <h2 class="section">{chosen.name}: triggers, levels and boosts</h2>
          <Triggers session={session} systemId={chosen.id} />
          <Levels session={session} systemId={chosen.id} />
          <Boosts session={session} systemId={chosen.id} />
        </section>
      )}
    </section>
  );
}
