/**
 * A points system's triggers (`/admin/v1/points/:id/triggers`): the list, a form that adds one of
 * any kind (a metric, an achievement, a streak length, a new user, time; its fields in
 * trigger-fields.tsx, a trigger's limits per user in trigger-limits.tsx), editing
 * one (trigger-edit.tsx), delete.
 */
import { useState } from 'preact/hooks';
import { deleteOne, type Session } from '../../api.js';
import { useConfirm } from '../../confirm.js';
import { createFromForm, Field, fieldSetter } from '../../form.js';
import { ItemTable, useActiveMetrics, useList } from '../../list.js';
import { EditTrigger } from './trigger-edit.js';
import type { AdminAchievementView } from '../../types.js';
import { count } from '../../words.js';
import { TriggerFields, typeFieldsOf, type Trigger } from './trigger-fields.js';
import { AWARD_LIMIT_FIELDS, AwardLimitFields, awardLimitWords, newAwardLimits } from './trigger-limits.js';

const EMPTY = { type: 'metric', points: '10', metricId: '', metricThreshold: '1', achievementId: '', streakLength: '7', timeUnit: 'days', timeInterval: '1',
  cooldownSeconds: '', maxAwardsCount: '', maxAwardsPeriod: '' };

const KINDS = { metric: 'A metric', achievement: 'An achievement', streak: 'A streak length', user_creation: 'A new user', time: 'Time' };

export function Triggers({ session, systemId }: { session: Session; systemId: string }) {
  const path = `/admin/v1/points/${encodeURIComponent(systemId)}/triggers`;
  const list = useList<Trigger>(session, `${path}?limit=100`);
  const metrics = useActiveMetrics(session);
  const achievements = useList<AdminAchievementView>(session, '/admin/v1/achievements?limit=100').items ?? [];
  const [form, setForm] = useState(EMPTY);
  const [dialog, confirm] = useConfirm();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [editing, setEditing] = useState<string | null>(null);
  const set = fieldSetter(form, setForm);
  const name = (t: Trigger): string => {
    switch (t.type) {
      case 'metric': return `every ${t.metricThreshold} of ${metrics.find((m) => m.id === t.metricId)?.name ?? t.metricId}`;
      case 'achievement': return `completing ${achievements.find((a) => a.id === t.achievementId)?.name ?? t.achievementId}`;
      case 'streak': return `every ${count(t.streakLength ?? 0, 'period')} of streak`;
      case 'time': return `every ${count(t.timeInterval ?? 0, (t.timeUnit ?? 'days').replace(/s$/, ''))}`;
      default: return 'a new user';
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const item = { type: form.type, points: Number(form.points), status: 'active', ...typeFieldsOf(form), ...newAwardLimits(form.type, form) };
    const fields = ['points', 'metricId', 'metricThreshold', 'achievementId', 'streakLength', 'timeInterval', 'timeUnit', ...AWARD_LIMIT_FIELDS];
    if (await createFromForm<Trigger>(session, path, item, fields, setErrors) === null) return;
    setForm({ ...EMPTY, type: form.type });
    await list.reload();
  };
  const remove = async (t: Trigger) => {
    if (!await confirm({
      title: `Delete the trigger ${name(t)}?`, action: 'Delete',
      body: <p>It awards no more points ({t.points} each time now); what it awarded stays in users' totals. To stop it for a while, edit its status to inactive instead.</p>,
    })) return;
    const error = await deleteOne(session, path, t.id);
    setErrors({ list: error });
    if (error === '' && t.id === editing) setEditing(null);
    await list.reload();
  };
  const edited = list.items?.find((t) => t.id === editing);
  return (
    <div class="card">
      <h2>Triggers</h2>
      <form class="row" onSubmit={submit} aria-label="New trigger">
        <Field id="trigger-type" label="Awards points for">
          <select id="trigger-type" value={form.type} onChange={set('type')}>
            {Object.entries(KINDS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
          </select>
        </Field>
        <Field id="trigger-points" label="Points" error={errors.points}>
          <input id="trigger-points" type="number" value={form.points} required onInput={set('points')} />
        </Field>
        <TriggerFields prefix="trigger" form={form} errors={errors} set={set} metrics={metrics} achievements={achievements} />
        <AwardLimitFields prefix="trigger" type={form.type} form={form} errors={errors} set={set} />
        <button type="submit">Add trigger</button>
      </form>
      <ItemTable list={list} empty="No triggers yet." label="Triggers" class="triggers" error={errors.form ?? errors.list ?? ''}
        columns={[
          { head: 'Points', cell: (t) => t.points }, { head: 'For', cell: name },
          { head: 'Filters', cell: (t) => t.userAttributes.length + (t.eventAttributes?.length ?? 0) || 'none' },
          { head: 'Limits', cell: (t) => awardLimitWords(t) || 'none' }, { head: 'Status', cell: (t) => t.status },
        ]}
        actions={(t) => (
          <>
            <button type="button" class="small" aria-label={`Edit trigger ${name(t)}`} onClick={() => setEditing(t.id)}>Edit</button>
            <button type="button" class="small danger" aria-label={`Delete trigger ${name(t)}`} onClick={() => remove(t)}>Delete</button>
          </>
        )} />
      {edited !== undefined && (
        <EditTrigger key={edited.id} session={session} path={path} trigger={edited} title={name(edited)} metrics={metrics}
          achievements={achievements} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {dialog}
    </div>
  );
}
