/** Metrics: the list, and a form that creates one through the Admin API. */
import type { Session } from '../api.js';
import { useCreateForm } from '../create-form.js';
import { NameKey } from '../form.js';
import { ListBox, useList } from '../list.js';

export interface Metric {
  id: string;
  key: string;
  name: string;
  status: string;
}

const EMPTY = { name: '', key: '' };

export function MetricsPage({ session }: { session: Session }) {
  const list = useList<Metric>(session, '/admin/v1/metrics?limit=100');
  const { form, set, errors, submit } = useCreateForm(session, '/admin/v1/metrics', list, EMPTY, (f) => f, ['key', 'name']);
  return (
    <section>
      <h1>Metrics</h1>
      <form class="card" onSubmit={submit} aria-label="New metric">
        <h2>New metric</h2>
        <NameKey prefix="metric" form={form} errors={errors} set={set} />
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create metric</button>
      </form>
      <ListBox list={list} empty="No metrics yet.">
        {(metrics) => (
          <table>
            <thead><tr><th>Key</th><th>Name</th><th>Status</th></tr></thead>
            <tbody>{metrics.map((m) => <tr key={m.id}><td><code>{m.key}</code></td><td>{m.name}</td><td>{m.status}</td></tr>)}</tbody>
          </table>
        )}
      </ListBox>
    </section>
  );
}
