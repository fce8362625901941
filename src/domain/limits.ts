/**
 * Limits against farming (docs/api.md, "Fair play"): a metric's `limits` (only the first `max` of a
 * period's values count), a points trigger's `cooldownSeconds` and `maxAwards`. Periods are the
 * user's clock (src/domain/clock.ts): a local hour, a local day, an ISO week (Monday to Sunday,
 * src/domain/periods.ts). What the event script does with them: lua/includes/limits.lua.
 */
import type { LimitPeriod, MetricLimits } from '../model/entities.js';
import type { UserTime } from './clock.js';
import { periodOfDay } from './periods.js';

export const LIMIT_PERIODS: LimitPeriod[] = ['hour', 'day', 'week'];

/** The smallest limit taken: the scripts count fractions to 9 decimals, so a smaller one would let nothing count. */
const MIN_LIMIT = 1e-9;
/** The largest limit taken: far below where a sum of values loses its units. */
const MAX_LIMIT = 1e12;

export const LIMITS_SCHEMA = {
  type: ['object', 'null'],
  required: ['max', 'period'],
  properties: { max: { type: 'number', minimum: MIN_LIMIT, maximum: MAX_LIMIT }, period: { enum: LIMIT_PERIODS } },
};

export const COOLDOWN_SCHEMA = { type: ['integer', 'null'], minimum: 1, maximum: 31_622_400 };

export const MAX_AWARDS_SCHEMA = {
  type: ['object', 'null'],
  required: ['count', 'period'],
  properties: { count: { type: 'integer', minimum: 1, maximum: 1_000_000 }, period: { enum: LIMIT_PERIODS } },
};

/** A period as the scripts name it: its first letter. */
export function periodLetter(p: LimitPeriod): string {
  return p.charAt(0);
}

/** A metric's limit as the event script takes it ('/<max>:<letter>'), or '' without one. */
export function limitArg(limits: MetricLimits | null | undefined): string {
  return limits == null ? '' : `/${limits.max}:${periodLetter(limits.period)}`;
}

/**
 * The user's clock at an event, as the event script takes it (lua/includes/limits.lua):
 * '<hour>,<day>,<week>', the indexes of the hour, the day and the ISO week on the user's clock
 * (src/domain/clock.ts).
 */
export function limitClock(t: UserTime): string {
  return `${t.hour},${t.day},${periodOfDay('weekly', t.day)}`;
}

/**
 * The period of a metric's limit that an event counted in the hour `hour` of the user's clock fell
 * in, as the user-metric hash's `lim` field names it ('<letter><index>'); '' for a metric without a
 * limit.
 */
export function limitPeriodOf(limits: MetricLimits | null | undefined, hour: number): string {
  return limits == null ? '' : periodLetter(limits.period) + periodIndex(limits.period, hour);
}

/** The index of the period (hour, day or week of the user's clock) that holds the clock's hour `hour`, as limitClock gives it. */
export function periodIndex(period: LimitPeriod, hour: number): string {
  if (period === 'hour') return String(hour);
  const day = Math.floor(hour / 24);
  return String(period === 'day' ? day : periodOfDay('weekly', day));
}
