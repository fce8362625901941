/**
 * A points system's triggers (`/admin/v1/points/:id/triggers`): the list, a form that adds one of
 * any kind (a metric, an achievement, a streak length, a new user, time), delete.
 */
import { useState } from 'preact/hooks';
import { deleteOne, type Session } from '../../api.js';
import { createFromForm, Field, fieldSetter } from '../../form.js';
import { ListBox, useActiveMetrics, useList } from '../../list.js';

interface Trigger {
  id: string;
  type: 'metric' | 'achievement' | 'streak' | 'user_creation' | 'time';
  points: number;
  status: string;
  metricId?: string;
  metricThreshold?: number;
  achievementId?: string;
  streakLength?: number;
  timeUnit?: string;
  timeInterval?: number;
}

const KINDS = { metric: 'A metric', achievement: 'An achievement', streak: 'A streak length', user_creation: 'A new user', time: 'Time' };

export function Triggers({ session, systemId }: { session: Session; systemId: string }) {
  const path = `/admin/v1/points/${encodeURIComponent(systemId)}/triggers`;
  const list = useList<Trigger>(session, `${path}?limit=100`);
  const metrics = useActiveMetrics(session);
  const achievements = useList<{ id: string; name: string }>(session, '/admin/v1/achievements?limit=100').items ?? [];
  const [form, setForm] = useState({ type: 'metric', points: '10', metricId: '', metricThreshold: '1', achievementId: '', streakLength: '7', timeUnit: 'days', timeInterval: '1' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = fieldSetter(form, setForm);
  const name = (t: Trigger): string => {
    switch (t.type) {
      case 'metric': return `every ${t.metricThreshold} of ${metrics.find((m) => m.id === t.metricId)?.name ?? t.metricId}`;
      case 'achievement': return `completing ${achievements.find((a) => a.id === t.achievementId)?.name ?? t.achievementId}`;
      case 'streak': return `every ${t.streakLength} periods of streak`;
      case 'time': return `every ${t.timeInterval} ${t.timeUnit}`;
      default: return 'a new user';
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const item: Record<string, unknown> = { type: form.type, points: Number(form.points), status: 'active' };
    if (form.type === 'metric') Object.assign(item, { metricId: form.metricId, metricThreshold: Number(form.metricThreshold) });
    if (form.type === 'achievement') item.achievementId = form.achievementId;
    if (form.type === 'streak') item.streakLength = Number(form.streakLength);
    if (form.type === 'time') Object.assign(item, { timeUnit: form.timeUnit, timeInterval: Number(form.timeInterval) });
    const fields = ['points', 'metricId', 'metricThreshold', 'achievementId', 'streakLength', 'timeInterval', 'timeUnit'];
    if (await createFromForm<Trigger>(session, path, item, fields, setErrors) !== null) await list.reload();
  };
  const remove = async (id: string) => {
    setErrors({ list: await deleteOne(session, path, id) });
    await list.reload();
  };
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
        {form.type === 'metric' && <>
          <Field id="trigger-metric" label="Metric" error={errors.metricId}>
            <select id="trigger-metric" value={form.metricId} required onChange={set('metricId')}>
              <option value="">Choose a metric</option>
              {metrics.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
            </select>
          </Field>
          <Field id="trigger-threshold" label="For every (units)" error={errors.metricThreshold}>
            <input id="trigger-threshold" type="number" min="1" value={form.metricThreshold} required onInput={set('metricThreshold')} />
          </Field>
        </>}
        {form.type === 'achievement' && (
          <Field id="trigger-achievement" label="Achievement" error={errors.achievementId}>
            <select id="trigger-achievement" value={form.achievementId} required onChange={set('achievementId')}>
              <option value="">Choose an achievement</option>
              {achievements.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
          </Field>
        )}
        {form.type === 'streak' && (
          <Field id="trigger-streak" label="Every streak length of" error={errors.streakLength}>
            <input id="trigger-streak" type="number" min="1" value={form.streakLength} required onInput={set('streakLength')} />
          </Field>
        )}
        {form.type === 'time' && <>
          <Field id="trigger-interval" label="Every" error={errors.timeInterval}>
            <input id="trigger-interval" type="number" min="1" value={form.timeInterval} required onInput={set('timeInterval')} />
          </Field>
          <Field id="trigger-unit" label="Unit" error={errors.timeUnit}>
            <select id="trigger-unit" value={form.timeUnit} onChange={set('timeUnit')}><option value="hours">Hours</option><option value="days">Days</option></select>
          </Field>
        </>}
        <button type="submit">Add trigger</button>
      </form>
      <p class="error" role="alert">{errors.form ?? errors.list ?? ''}</p>
      <ListBox list={list} empty="No triggers yet." label="Triggers">
        {(items) => (
          <table class="triggers">
            <thead><tr><th>Points</th><th>For</th><th>Status</th><th></th></tr></thead>
            <tbody>{items.map((t) => (
              <tr key={t.id}>
                <td>{t.points}</td><td>{name(t)}</td><td>{t.status}</td>
                <td><button type="button" class="small danger" aria-label={`Delete trigger ${name(t)}`} onClick={() => remove(t.id)}>Delete</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </ListBox>
    </div>
  );
}
