/**
 * Limits against farming (docs/api.md, "Fair play"): a metric's `limits` (only the first `max` of a
 * period's values count), a points trigger's `cooldownSeconds` and `maxAwards`. Periods are the
 * user's clock: a local hour, a local day, an ISO week (Monday to Sunday, src/domain/periods.ts),
 * in the user's time zone. What the event script does with them: lua/includes/limits.lua.
 */
import { DateTime } from 'luxon';
import { BoundedMap } from '../lib/memo.js';
import type { LimitPeriod, MetricLimits } from '../model/entities.js';
import { dayIndexOf, periodOfDay } from './periods.js';
import { localDay } from './time.js';

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

/** Zone offsets (minutes) per zone and quarter hour: every offset change falls on a quarter hour. */
const offsets = new BoundedMap<string, number>(10_000);

function offsetMinutes(tz: string, ms: number): number {
  const key = `${tz}|${Math.floor(ms / 900_000)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = DateTime.fromMillis(ms, { zone: tz || 'UTC' }).offset;
    offsets.set(key, offset);
  }
  return offset;
}

/**
 * The user's clock at `ms` in zone `tz` ('' is UTC), as the event script takes it:
 * '<hour>,<day>,<week>', the indexes of the local hour (hours since 1970-01-01T00:00 local time),
 * the local day and the ISO week (src/domain/periods.ts).
 */
export function limitClock(tz: string, ms: number): string {
  const day = dayIndexOf(localDay(tz, ms));
  const hour = Math.floor((ms + offsetMinutes(tz, ms) * 60_000) / 3_600_000);
  return `${hour},${day},${periodOfDay('weekly', day)}`;
}

/**
 * The period of a metric's limit that an event at `ms` in zone `tz` fell in, as the user-metric
 * hash's `lim` field names it ('<letter><index>'); '' for a metric without a limit.
 */
export function limitPeriodOf(limits: MetricLimits | null | undefined, tz: string, ms: number): string {
  return limits == null ? '' : periodLetter(limits.period) + periodIndex(limits.period, tz, ms);
}

/** The index of the period (hour, day or week of the user's clock in zone `tz`) that holds `ms`, as limitClock gives it. */
export function periodIndex(period: LimitPeriod, tz: string, ms: number): string {
  const [hour, day, week] = limitClock(tz, ms).split(',');
  return period === 'hour' ? hour : period === 'day' ? day : week;
}
