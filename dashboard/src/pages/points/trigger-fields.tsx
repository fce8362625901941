/**
 * A points trigger (`/admin/v1/points/:id/triggers`) and the fields of its type, shared by the form
 * that adds one and the one that edits it: a metric and how many units earn the points, an
 * achievement, a streak length, or a time interval (a new user has none).
 */
import { Field, type Choice } from '../../form.js';
import type { PointsTriggerAdminView } from '../../types.js';

export type Trigger = PointsTriggerAdminView;

type TypeForm = { type: string; metricId: string; metricThreshold: string; achievementId: string; streakLength: string; timeUnit: string; timeInterval: string };

/** The API's fields of a trigger of the form's type. */
export function typeFieldsOf(f: TypeForm): Record<string, unknown> {
  switch (f.type) {
    case 'metric': return { metricId: f.metricId, metricThreshold: Number(f.metricThreshold) };
    case 'achievement': return { achievementId: f.achievementId };
    case 'streak': return { streakLength: Number(f.streakLength) };
    case 'time': return { timeUnit: f.timeUnit, timeInterval: Number(f.timeInterval) };
    default: return {};
  }
}

export function TriggerFields(props: {
  prefix: string; form: TypeForm; errors: Record<string, string>;
  set: (field: 'metricId' | 'metricThreshold' | 'achievementId' | 'streakLength' | 'timeUnit' | 'timeInterval') => (e: Event) => void;
  metrics: Choice[]; achievements: Choice[];
}) {
  const { prefix: p, form, errors, set } = props;
  switch (form.type) {
    case 'metric': return <>
      <Field id={`${p}-metric`} label="Metric" error={errors.metricId}>
        <select id={`${p}-metric`} value={form.metricId} required onChange={set('metricId')}>
          <option value="">Choose a metric</option>
          {props.metrics.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select>
      </Field>
      <Field id={`${p}-threshold`} label="For every (units)" error={errors.metricThreshold}>
        <input id={`${p}-threshold`} type="number" min="1" value={form.metricThreshold} required onInput={set('metricThreshold')} />
      </Field>
    </>;
    case 'achievement': return (
      <Field id={`${p}-achievement`} label="Achievement" error={errors.achievementId}>
        <select id={`${p}-achievement`} value={form.achievementId} required onChange={set('achievementId')}>
          <option value="">Choose an achievement</option>
          {props.achievements.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
        </select>
      </Field>
    );
    case 'streak': return (
      <Field id={`${p}-streak`} label="Every streak length of" error={errors.streakLength}>
        <input id={`${p}-streak`} type="number" min="1" value={form.streakLength} required onInput={set('streakLength')} />
      </Field>
    );
    case 'time': return <>
      <Field id={`${p}-interval`} label="Every" error={errors.timeInterval}>
        <input id={`${p}-interval`} type="number" min="1" value={form.timeInterval} required onInput={set('timeInterval')} />
      </Field>
      <Field id={`${p}-unit`} label="Unit" error={errors.timeUnit}>
        <select id={`${p}-unit`} value={form.timeUnit} onChange={set('timeUnit')}><option value="hours">Hours</option><option value="days">Days</option></select>
      </Field>
    </>;
    default: return null;
  }
}
