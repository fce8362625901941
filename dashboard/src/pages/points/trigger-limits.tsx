/**
 * A points trigger's limits per user (the Admin API refuses them on the other kinds):
 * `cooldownSeconds` on metric and streak triggers, no award from it within that many seconds of its
 * last one, and `maxAwards: { count, period }` on those and time triggers, at most `count` awards
 * per period of the user's clock.
 * Shared by the form that adds a trigger and the one that edits it; an empty field sends none (null
 * on an edit, which takes it off).
 */
import { Field } from '../../form.js';
import type { Trigger } from './trigger-fields.js';

export interface AwardLimitForm {
  cooldownSeconds: string;
  maxAwardsCount: string;
  /** '' (no cap), hour, day or week. */
  maxAwardsPeriod: string;
}

/** The Admin API's field names a refusal of the limits mentions, the most precise first (fieldOf). */
export const AWARD_LIMIT_FIELDS = ['cooldownSeconds', 'maxAwards.count', 'maxAwards.period', 'maxAwards'];

/** Whether triggers of this type take a cooldown. */
export function takesCooldown(type: string): boolean {
  return type === 'metric' || type === 'streak';
}

/** Whether triggers of this type take maxAwards (a time trigger's interval spaces its awards: no cooldown). */
export function takesAwardLimits(type: string): boolean {
  return takesCooldown(type) || type === 'time';
}

/** A trigger's limits as the form holds them. */
export function awardLimitFormOf(t: Trigger): AwardLimitForm {
  return {
    cooldownSeconds: t.cooldownSeconds == null ? '' : String(t.cooldownSeconds),
    maxAwardsCount: t.maxAwards == null ? '' : String(t.maxAwards.count), maxAwardsPeriod: t.maxAwards?.period ?? '',
  };
}

/** The form's limits as the Admin API takes them (null for none); none at all for a type without them. */
export function awardLimitsOf(type: string, f: AwardLimitForm): { cooldownSeconds?: number | null; maxAwards?: { count: number; period: string } | null } {
  if (!takesAwardLimits(type)) return {};
  const maxAwards = f.maxAwardsPeriod === '' ? null : { count: Number(f.maxAwardsCount), period: f.maxAwardsPeriod };
  if (!takesCooldown(type)) return { maxAwards };
  return { cooldownSeconds: f.cooldownSeconds === '' ? null : Number(f.cooldownSeconds), maxAwards };
}

/** The limits a new trigger is created with: only those set. */
export function newAwardLimits(type: string, f: AwardLimitForm): Record<string, unknown> {
  return Object.fromEntries(Object.entries(awardLimitsOf(type, f)).filter(([, v]) => v !== null));
}

/** A trigger's limits in words: "once per 60 s, 5 per day", '' when none. */
export function awardLimitWords(t: Trigger): string {
  return [
    t.cooldownSeconds == null ? '' : `once per ${t.cooldownSeconds} s`,
    t.maxAwards == null ? '' : `${t.maxAwards.count} per ${t.maxAwards.period}`,
  ].filter((w) => w !== '').join(', ');
}

export function AwardLimitFields(props: {
  prefix: string; type: string; form: AwardLimitForm; errors: Record<string, string>;
  set: (field: keyof AwardLimitForm) => (e: Event) => void;
}) {
  const { prefix: p, form, errors, set } = props;
  if (!takesAwardLimits(props.type)) return null;
  return <>
    {takesCooldown(props.type) && <Field id={`${p}-cooldown`} label="Cooldown (seconds, optional)" error={errors.cooldownSeconds}>
      <input id={`${p}-cooldown`} type="number" value={form.cooldownSeconds} onInput={set('cooldownSeconds')} />
    </Field>}
    <Field id={`${p}-max-awards-period`} label="Awards per user" error={errors['maxAwards.period']}>
      <select id={`${p}-max-awards-period`} value={form.maxAwardsPeriod} onChange={set('maxAwardsPeriod')}>
        <option value="">no cap</option><option value="hour">per hour</option>
        <option value="day">per day</option><option value="week">per week</option>
      </select>
    </Field>
    <Field id={`${p}-max-awards-count`} label="At most" error={errors['maxAwards.count'] ?? errors.maxAwards}>
      <input id={`${p}-max-awards-count`} type="number" value={form.maxAwardsCount} disabled={form.maxAwardsPeriod === ''}
        required={form.maxAwardsPeriod !== ''} onInput={set('maxAwardsCount')} />
    </Field>
  </>;
}
