/** Metrics: the list, and a form that creates one through the Admin API. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { createFromForm, Field } from '../form.js';

export interface Metric {
  id: string;
  key: string;
  name: string;
  status: string;
}

export function MetricsPage({ session }: { session: Session }) {
  const [metrics, setMetrics] = useState<Metric[] | null>(null);
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const load = () => call<Metric[]>(session, 'GET', '/admin/v1/metrics?limit=100').then((r) => setMetrics(r.body), () => setMetrics([]));
  useEffect(() => { void load(); }, [session.key, session.tenant]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const created = await createFromForm<Metric>(session, '/admin/v1/metrics', { name, key }, ['key', 'name'], setErrors);
    if (created !== null) {
      setName('');
      setKey('');
      await load();
    }
    setBusy(false);
  };

  return (
    <section>
      <h1>Metrics</h1>
      <form class="card" onSubmit={submit} aria-label="New metric">
        <h2>New metric</h2>
        <Field id="metric-name" label="Name" error={errors.name}>
          <input id="metric-name" value={name} required onInput={(e) => setName(e.currentTarget.value)} aria-describedby="metric-name-error" />
        </Field>
        <Field id="metric-key" label="Key" error={errors.key}>
          <input id="metric-key" value={key} required pattern="[A-Za-z0-9_-]+" onInput={(e) => setKey(e.currentTarget.value)} aria-describedby="metric-key-error" />
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit" disabled={busy}>Create metric</button>
      </form>
      <div class="table-box">
        {metrics === null ? <p class="muted">Loading…</p> : metrics.length === 0 ? <p class="muted">No metrics yet.</p> : (
          <table>
            <thead><tr><th>Key</th><th>Name</th><th>Status</th></tr></thead>
            <tbody>{metrics.map((m) => <tr key={m.id}><td><code>{m.key}</code></td><td>{m.name}</td><td>{m.status}</td></tr>)}</tbody>
          </table>
        )}
      </div>
    </section>
  );
}
