/**
 * Points systems: each with how the tenant's users spread over its totals (the Application API's
 * summary, with the admin key), a form that creates one awarding points for a metric, and the
 * triggers, levels and boosts of the one chosen (points/).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { useCreateForm } from '../create-form.js';
import { Field, NameKeyMetric } from '../form.js';
import { ItemTable, useActiveMetrics, useList } from '../list.js';
import type { PointsRange, PointsSystemAdminView as System } from '../types.js';
import { count, pointsRange } from '../words.js';
import { Boosts } from './points/boosts.js';
import { Levels } from './points/levels.js';
import { Triggers } from './points/triggers.js';

/** The buckets that hold users, in words: "no points: 1 user; 1 to 100 points: 100 users". */
export function summaryWords(ranges: PointsRange[]): string {
  const held = ranges.filter((r) => r.users > 0);
  return held.length === 0 ? 'nobody yet' : held.map((r) => `${pointsRange(r)}: ${count(r.users, 'user')}`).join('; ');
}

function Summary({ session, system }: { session: Session; system: System }) {
  const [ranges, setRanges] = useState<PointsRange[] | null>(null);
  useEffect(() => {
    void call<PointsRange[]>(session, 'GET', `/api/points/${encodeURIComponent(system.key)}/summary`).then((r) => setRanges(r.body), () => setRanges([]));
  }, [system.key, session.tenant]);
  return ranges === null ? <span class="muted">…</span> : <span>{summaryWords(ranges)}</span>;
}

const EMPTY = { name: '', key: '', metricId: '', points: '10' };

export function PointsPage({ session }: { session: Session }) {
  const list = useList<System>(session, '/admin/v1/points?limit=100');
  const metrics = useActiveMetrics(session);
  const { form, set, errors, submit } = useCreateForm(session, '/admin/v1/points', list, EMPTY, (f) => ({
    name: f.name, key: f.key,
    triggers: [{ type: 'metric', metricId: f.metricId, metricThreshold: 1, points: Number(f.points), status: 'active' }],
  }), ['key', 'name', 'metricId', 'points']);
  const [chosen, setChosen] = useState<System | null>(null);
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
      <ItemTable list={list} empty="No points systems yet." class="points"
        columns={[
          { head: 'Key', cell: (p) => <code>{p.key}</code> }, { head: 'Name', cell: (p) => p.name }, { head: 'Status', cell: (p) => p.status },
          { head: 'Users by total', cell: (p) => <Summary session={session} system={p} /> },
        ]}
        actions={(p) => <button type="button" class="small" aria-label={`Configure ${p.name}`} onClick={() => setChosen(p)}>Configure</button>} />
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
