/**
 * Metrics: the list, a form that creates one (its limit per user: metrics/limits.tsx), Edit (its
 * name, units and limit: metrics/edit.tsx), Archive
 * and Restore (an archived metric takes no events), and Delete (refused while something counts
 * it), each destructive one asked first.
 */
import { useState } from 'preact/hooks';
import { updateOne, type Session } from '../api.js';
import { useConfirm } from '../confirm.js';
import { useCreateForm } from '../create-form.js';
import { NameKey } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { MetricView } from '../types.js';
import { EditMetric, unitsOf } from './metrics/edit.js';
import { LIMIT_FIELDS, LimitFields, limitsOf, limitWords } from './metrics/limits.js';

const EMPTY = { name: '', key: '', limitMax: '', limitPeriod: '' };

export function MetricsPage({ session }: { session: Session }) {
  const list = useList<MetricView>(session, '/admin/v1/metrics?limit=100');
  const { form, set, errors, setErrors, submit, remove } = useCreateForm(session, '/admin/v1/metrics', list, EMPTY, (f) => {
    const limits = limitsOf(f);
    return { name: f.name, key: f.key, ...(limits !== null && { limits }) };
  }, ['key', 'name', ...LIMIT_FIELDS]);
  const [editing, setEditing] = useState<string | null>(null);
  const [dialog, confirm] = useConfirm();
  const archive = async (m: MetricView) => {
    const archiving = m.status === 'active';
    if (archiving && !await confirm({
      title: `Archive the metric ${m.name}?`, action: 'Archive',
      body: <p>Events for <code>{m.key}</code> are refused (422) while it is archived, and it leaves the dashboard's choices. Its users' totals are kept, and Restore takes it back.</p>,
    })) return;
    try {
      setErrors({ list: (await updateOne(session, '/admin/v1/metrics', { id: m.id, status: archiving ? 'archived' : 'active' })).error });
    } catch (err) {
      setErrors({ list: (err as Error).message });
    }
    await list.reload();
  };
  const drop = async (m: MetricView) => {
    if (!await confirm({
      title: `Delete the metric ${m.name}?`, action: 'Delete',
      body: <p>Events for <code>{m.key}</code> are refused from then on, and its users' totals and summaries can no longer be read. A metric that an achievement, a points trigger, a leaderboard or the streak counts cannot be deleted.</p>,
    })) return;
    await remove(m.id);
    if (m.id === editing) setEditing(null);
  };
  const edited = list.items?.find((m) => m.id === editing);
  return (
    <section>
      <h1>Metrics</h1>
      <form class="card" onSubmit={submit} aria-label="New metric">
        <h2>New metric</h2>
        <NameKey prefix="metric" form={form} errors={errors} set={set} />
        <LimitFields prefix="metric" form={form} errors={errors} set={set} />
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create metric</button>
      </form>
      <ItemTable list={list} empty="No metrics yet." class="metrics" error={errors.list ?? ''} errorId="metric-list-error"
        columns={[
          { head: 'Key', cell: (m) => <code>{m.key}</code> }, { head: 'Name', cell: (m) => m.name },
          { head: 'Units', cell: unitsOf }, { head: 'Limit', cell: limitWords }, { head: 'Status', cell: (m) => m.status },
        ]}
        actions={(m) => (
          <>
            <button type="button" class="small" aria-label={`Edit metric ${m.key}`} onClick={() => setEditing(m.id)}>Edit</button>
            <button type="button" class="small" aria-label={`${m.status === 'active' ? 'Archive' : 'Restore'} metric ${m.key}`} onClick={() => archive(m)}>
              {m.status === 'active' ? 'Archive' : 'Restore'}
            </button>
            <button type="button" class="small danger" aria-label={`Delete metric ${m.key}`} onClick={() => drop(m)}>Delete</button>
          </>
        )} />
      {edited !== undefined && (
        <EditMetric key={edited.id} session={session} metric={edited} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {dialog}
    </section>
  );
}
