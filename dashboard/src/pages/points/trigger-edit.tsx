/**
 * Editing a points trigger (PATCH `/admin/v1/points/:id/triggers`): its points, status, what its
 * type counts (trigger-fields.tsx; the type itself stays), a metric or streak trigger's limits per
 * user (trigger-limits.tsx), and its filters: the user attributes of the users it pays, and a metric
 * trigger's event attributes.
 */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { FiltersField } from '../../filters.js';
import { Field, type Choice } from '../../form.js';
import { useAttributes } from '../../list.js';
import { TriggerFields, typeFieldsOf, type Trigger } from './trigger-fields.js';
import { AWARD_LIMIT_FIELDS, AwardLimitFields, awardLimitFormOf, awardLimitsOf } from './trigger-limits.js';

const FIELDS = ['points', 'status', 'metricId', 'metricThreshold', 'achievementId', 'streakLength', 'timeInterval', 'timeUnit', 'userAttributes', 'eventAttributes', ...AWARD_LIMIT_FIELDS];

export function EditTrigger(props: {
  session: Session; path: string; trigger: Trigger; title: string; metrics: Choice[]; achievements: Choice[];
  onSaved: () => unknown; onClose: () => void;
}) {
  const { trigger: t } = props;
  const attributes = useAttributes(props.session);
  const initial = {
    type: t.type, points: String(t.points), status: t.status, metricId: t.metricId ?? '', metricThreshold: String(t.metricThreshold ?? 1),
    achievementId: t.achievementId ?? '', streakLength: String(t.streakLength ?? 1), timeUnit: t.timeUnit ?? 'days',
    timeInterval: String(t.timeInterval ?? 1), userAttributes: t.userAttributes, eventAttributes: t.eventAttributes ?? [],
    ...awardLimitFormOf(t),
  };
  const { form, set, put, errors, state } = useEditForm(props.session, props.path, t.id, initial, (f) => ({
    points: Number(f.points), status: f.status, ...typeFieldsOf(f), ...awardLimitsOf(f.type, f), userAttributes: f.userAttributes,
    ...(f.type === 'metric' && { eventAttributes: f.eventAttributes }),
  }), FIELDS, props.onSaved);
  const p = 'trigger-edit';
  return (
    <EditCard label={`Edit trigger ${props.title}`} title={`Edit the trigger: ${props.title}`} state={state} onClose={props.onClose}>
      <div class="row">
        <Field id={`${p}-points`} label="Points" error={errors.points}>
          <input id={`${p}-points`} type="number" value={form.points} required onInput={set('points')} />
        </Field>
        <Field id={`${p}-status`} label="Status" error={errors.status}>
          <select id={`${p}-status`} value={form.status} onChange={set('status')}><option value="active">Active</option><option value="inactive">Inactive</option></select>
        </Field>
        <TriggerFields prefix={p} form={form} errors={errors} set={set} metrics={props.metrics} achievements={props.achievements} />
      </div>
      <div class="row"><AwardLimitFields prefix={p} type={t.type} form={form} errors={errors} set={set} /></div>
      {t.type === 'metric' && (
        <FiltersField id={`${p}-eventAttributes`} label="Counts only events with" attributes={attributes.event} value={form.eventAttributes}
          onChange={(v) => put('eventAttributes', v)} error={errors.eventAttributes} none="Every event of the metric counts." />
      )}
      <FiltersField id={`${p}-userAttributes`} label="Only users with" attributes={attributes.user} value={form.userAttributes}
        onChange={(v) => put('userAttributes', v)} error={errors.userAttributes} none="It pays every user." />
    </EditCard>
  );
}
