/**
 * Achievements: each with its completions and rarity in the tenant chosen (the Application API's
 * list, with the admin key), a form that creates one of any trigger through the Admin API (a metric
 * reaching a total, a streak reaching a length, completed through the API, a composite of others,
 * or the user's anniversary), edit (achievements/edit.tsx), and delete, asked first with the
 * completions it loses.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, deleteOne, type Session } from '../api.js';
import { useConfirm } from '../confirm.js';
import { createFromForm, Field, fieldSetter, NameKey, NameKeyMetric } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { AchievementStatsView as Achievement, MetricView as Metric } from '../types.js';
import { count } from '../words.js';
import { EditAchievement } from './achievements/edit.js';
import { PartsField } from './achievements/parts.js';

/** What completes an achievement, in words: "Lessons completed reaches 10". */
export function triggerWords(a: Achievement): string {
  switch (a.trigger) {
    case 'metric': return `${a.metricName ?? a.metricId ?? 'a metric'} reaches ${a.metricValue ?? '?'}`;
    case 'streak': return `a streak of ${a.streakLength ?? '?'}`;
    case 'achievement': return `all of ${count(a.achievementIds?.length ?? 0, 'other')} (composite)`;
    case 'anniversary': return `${count(a.anniversaryYears ?? 0, 'year')} since the user joined`;
    default: return 'your backend (API)';
  }
}

export function AchievementsPage({ session }: { session: Session }) {
  const loaded = useList<Achievement>(session, '/api/achievements');
  const list = loaded.items;
  const load = loaded.reload;
  const [dialog, confirm] = useConfirm();
  const [metrics, setMetrics] = useState<Metric[]>([]);
  const empty = { trigger: 'metric', name: '', key: '', metricId: '', metricValue: '1', streakLength: '7', anniversaryYears: '1' };
  const [form, setForm] = useState(empty);
  const [parts, setParts] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => {
    void call<Metric[]>(session, 'GET', '/admin/v1/metrics?limit=100').then((r) => setMetrics(r.body.filter((m) => m.status === 'active')));
  }, [session.key, session.tenant]);
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    const { trigger, name } = form;
    // Left empty, the Admin API makes the key from the name (it asks for one of an achievement completed through the API).
    const key = form.key === '' ? undefined : form.key;
    const item = trigger === 'metric' ? { name, key, trigger, metricId: form.metricId, metricValue: Number(form.metricValue) }
      : trigger === 'streak' ? { name, key, trigger, streakLength: Number(form.streakLength) }
        : trigger === 'achievement' ? { name, key, trigger, achievementIds: parts }
          : trigger === 'anniversary' ? { name, key, trigger, anniversaryYears: Number(form.anniversaryYears) } : { name, key, trigger };
    const created = await createFromForm<Achievement>(
      session, '/admin/v1/achievements', item,
      ['key', 'name', 'metricId', 'metricValue', 'streakLength', 'anniversaryYears', 'achievementIds', 'trigger'], setErrors,
    );
    if (created === null) return;
    setForm({ ...empty, trigger, metricId: form.metricId });
    setParts([]);
    await load();
  };
  const remove = async (a: Achievement) => {
    if (!await confirm({
      title: `Delete the achievement ${a.name}?`, action: 'Delete',
      body: a.completions === 0 ? <p>Nobody has completed it yet. Its key <code>{a.key}</code> is free again once it is gone.</p> : (
        <p><strong>{count(a.completions, 'user')} completed it</strong> ({a.rarity}% of this tenant's users). Their completions are no longer shown
          to them nor counted, and creating it again does not give them back: a new achievement starts with nobody.</p>
      ),
    })) return;
    const error = await deleteOne(session, '/admin/v1/achievements', a.id);
    setErrors({ list: error });
    if (error === '' && a.id === editing) setEditing(null);
    await load();
  };

  return (
    <section>
      <h1>Achievements</h1>
      <form class="card" onSubmit={submit} aria-label="New achievement">
        <h2>New achievement</h2>
        <Field id="achievement-trigger" label="Completed when" error={errors.trigger}>
          <select id="achievement-trigger" value={form.trigger} onChange={set('trigger')}>
            <option value="metric">a metric reaches a total</option>
            <option value="streak">the streak reaches a length</option>
            <option value="api">your backend completes it (API)</option>
            <option value="achievement">others are all completed (composite)</option>
            <option value="anniversary">the user's anniversary comes (on their calendar)</option>
          </select>
        </Field>
        {form.trigger === 'metric' ? (
          <>
            <NameKeyMetric prefix="achievement" form={form} errors={errors} set={set} metrics={metrics} metricLabel="When the metric" keyOptional />
            <Field id="achievement-value" label="Reaches the total" error={errors.metricValue}>
              <input id="achievement-value" type="number" min="1" value={form.metricValue} required onInput={set('metricValue')} />
            </Field>
          </>
        ) : <NameKey prefix="achievement" form={form} errors={errors} set={set} keyOptional={form.trigger !== 'api'} />}
        {form.trigger === 'streak' && (
          <Field id="achievement-streak" label="Streak length" error={errors.streakLength}>
            <input id="achievement-streak" type="number" min="1" value={form.streakLength} required onInput={set('streakLength')} />
          </Field>
        )}
        {form.trigger === 'achievement' && (
          <PartsField id="achievement-parts" achievements={list ?? []} value={parts} onChange={setParts} error={errors.achievementIds} />
        )}
        {form.trigger === 'anniversary' && (
          <Field id="achievement-years" label="Years since the user was created" error={errors.anniversaryYears}>
            <input id="achievement-years" type="number" min="1" value={form.anniversaryYears} required onInput={set('anniversaryYears')} />
          </Field>
        )}
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create achievement</button>
      </form>
      <ItemTable list={loaded} empty="No achievements yet." class="achievements" error={errors.list ?? ''}
        columns={[
          { head: 'Key', cell: (a) => <code>{a.key}</code> }, { head: 'Name', cell: (a) => a.name },
          { head: 'Completed when', cell: triggerWords }, { head: 'Completions', cell: (a) => a.completions }, { head: 'Rarity', cell: (a) => `${a.rarity}%` },
        ]}
        actions={(a) => (
          <>
            <button type="button" class="small" aria-label={`Edit achievement ${a.key}`} onClick={() => setEditing(a.id)}>Edit</button>
            <button type="button" class="small danger" aria-label={`Delete achievement ${a.key}`} onClick={() => remove(a)}>Delete</button>
          </>
        )} />
      {editing !== null && (
        <EditAchievement key={editing} session={session} id={editing} metrics={metrics} achievements={list ?? []}
          onSaved={load} onClose={() => setEditing(null)} />
      )}
      {dialog}
    </section>
  );
}
