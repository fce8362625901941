/**
 * Editing an achievement (PATCH /admin/v1/achievements): its name, key, description and badge, what
 * its trigger counts (the metric and its total and the events counted, by event attribute; the
 * streak length; a composite's parts; an anniversary's years) and who can earn it (user attribute
 * filters). The trigger
 * itself cannot change. The achievement is read from the Admin API when the form opens.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { FiltersField } from '../../filters.js';
import { Field, NameKey, NameKeyMetric, type Choice } from '../../form.js';
import { useAttributes } from '../../list.js';
import type { AdminAchievementView } from '../../types.js';
import { PartsField } from './parts.js';

interface Props {
  session: Session;
  id: string;
  metrics: Choice[];
  achievements: Choice[];
  onSaved: () => unknown;
  onClose: () => void;
}

const FIELDS = [
  'key', 'name', 'description', 'badge', 'metricId', 'metricValue', 'streakLength', 'anniversaryYears', 'achievementIds', 'userAttributes', 'eventAttributes',
];

export function EditAchievement(props: Props) {
  const [a, setA] = useState<AdminAchievementView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    void call<AdminAchievementView>(props.session, 'GET', `/admin/v1/achievements/${encodeURIComponent(props.id)}`)
      .then((r) => setA(r.body), (err: Error) => setError(err.message));
  }, [props.id]);
  if (a === null) return <div class="card"><p class={error === '' ? 'muted' : 'error'} role="alert">{error === '' ? 'Loading…' : error}</p></div>;
  return <AchievementForm {...props} achievement={a} />;
}

function AchievementForm(props: Props & { achievement: AdminAchievementView }) {
  const { session, achievement: a } = props;
  const attributes = useAttributes(session);
  const initial = {
    name: a.name, key: a.key, description: a.description ?? '', badge: a.badge?.url ?? '',
    metricId: a.metricId ?? '', metricValue: String(a.metricValue ?? ''), streakLength: String(a.streakLength ?? ''),
    anniversaryYears: String(a.anniversaryYears ?? ''),
    parts: a.achievementIds, userAttributes: a.userAttributes, eventAttributes: a.eventAttributes,
  };
  const { form, set, put, errors, state } = useEditForm(session, '/admin/v1/achievements', a.id, initial, (f) => ({
    name: f.name, key: f.key, description: f.description === '' ? null : f.description, badge: f.badge === '' ? null : { url: f.badge },
    userAttributes: f.userAttributes,
    ...(a.trigger === 'metric' && { metricId: f.metricId, metricValue: Number(f.metricValue), eventAttributes: f.eventAttributes }),
    ...(a.trigger === 'streak' && { streakLength: Number(f.streakLength) }),
    ...(a.trigger === 'achievement' && { achievementIds: f.parts }),
    ...(a.trigger === 'anniversary' && { anniversaryYears: Number(f.anniversaryYears) }),
  }), FIELDS, props.onSaved);
  const p = 'achievement-edit';
  return (
    <EditCard label={`Edit achievement ${a.key}`} title={`Edit ${a.name}`} state={state} onClose={props.onClose}>
      {a.trigger === 'metric' ? <>
        <NameKeyMetric prefix={p} form={form} errors={errors} set={set} metrics={props.metrics} metricLabel="When the metric" />
        <Field id={`${p}-value`} label="Reaches the total" error={errors.metricValue}>
          <input id={`${p}-value`} type="number" min="0" step="any" value={form.metricValue} required onInput={set('metricValue')} />
        </Field>
      </> : <NameKey prefix={p} form={form} errors={errors} set={set} />}
      {a.trigger === 'streak' && (
        <Field id={`${p}-streak`} label="Streak length" error={errors.streakLength}>
          <input id={`${p}-streak`} type="number" min="1" value={form.streakLength} required onInput={set('streakLength')} />
        </Field>
      )}
      {a.trigger === 'anniversary' && (
        <Field id={`${p}-years`} label="Years since the user was created" error={errors.anniversaryYears}>
          <input id={`${p}-years`} type="number" min="1" value={form.anniversaryYears} required onInput={set('anniversaryYears')} />
        </Field>
      )}
      {a.trigger === 'achievement' && (
        <PartsField id={`${p}-parts`} achievements={props.achievements.filter((x) => x.id !== a.id)} value={form.parts}
          onChange={(ids) => put('parts', ids)} error={errors.achievementIds} />
      )}
      <Field id={`${p}-description`} label="Description" error={errors.description}>
        <textarea id={`${p}-description`} rows={2} value={form.description} onInput={set('description')} />
      </Field>
      <Field id={`${p}-badge`} label="Badge image URL" error={errors.badge}>
        <input id={`${p}-badge`} type="url" value={form.badge} placeholder="https://example.com/badge.png" onInput={set('badge')} />
      </Field>
      {a.trigger === 'metric' && (
        <FiltersField id={`${p}-eventAttributes`} label="Counts only events with" attributes={attributes.event} value={form.eventAttributes}
          onChange={(v) => put('eventAttributes', v)} error={errors.eventAttributes} none="Every event of the metric counts." />
      )}
      <FiltersField id={`${p}-userAttributes`} label="Only users with" attributes={attributes.user} value={form.userAttributes}
        onChange={(v) => put('userAttributes', v)} error={errors.userAttributes} none="Every user can earn it." />
    </EditCard>
  );
}
