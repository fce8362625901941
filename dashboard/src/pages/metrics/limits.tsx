/**
 * A metric's limit (`limits: { max, period }`): per user and period of the user's clock, only the
 * first `max` of the values sent count. Shared by the form that creates a metric and the one that
 * edits it; the period "no limit" sends none (null on an edit, which takes it off).
 */
import { Field } from '../../form.js';
import type { MetricView } from '../../types.js';

export interface LimitForm {
  limitMax: string;
  /** '' (no limit), hour, day or week. */
  limitPeriod: string;
}

/** The Admin API's field names a refusal of the limit mentions, the most precise first (fieldOf). */
export const LIMIT_FIELDS = ['limits.max', 'limits.period', 'limits'];

/** A metric's limit as the form holds it. */
export function limitFormOf(m: MetricView): LimitForm {
  return { limitMax: m.limits == null ? '' : String(m.limits.max), limitPeriod: m.limits?.period ?? '' };
}

/** The form's limit as the Admin API takes it: null for none. */
export function limitsOf(f: LimitForm): { max: number; period: string } | null {
  return f.limitPeriod === '' ? null : { max: Number(f.limitMax), period: f.limitPeriod };
}

/** A metric's limit in words: "20 per day", "none". */
export function limitWords(m: MetricView): string {
  return m.limits == null ? 'none' : `${m.limits.max} per ${m.limits.period}`;
}

export function LimitFields(props: {
  prefix: string; form: LimitForm; errors: Record<string, string>; set: (field: keyof LimitForm) => (e: Event) => void;
}) {
  const { prefix: p, form, errors, set } = props;
  return (
    <div class="row">
      <Field id={`${p}-limit-period`} label="Limit per user" error={errors['limits.period']}>
        <select id={`${p}-limit-period`} value={form.limitPeriod} onChange={set('limitPeriod')}>
          <option value="">no limit</option><option value="hour">per hour</option>
          <option value="day">per day</option><option value="week">per week</option>
        </select>
      </Field>
      <Field id={`${p}-limit-max`} label="Values counted at most" error={errors['limits.max'] ?? errors.limits}>
        <input id={`${p}-limit-max`} type="number" step="any" value={form.limitMax} disabled={form.limitPeriod === ''}
          required={form.limitPeriod !== ''} onInput={set('limitMax')} />
      </Field>
    </div>
  );
}
