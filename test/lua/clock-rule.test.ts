/**
 * The user's clock and the rules that follow it, written twice (docs/api.md, "Time zones and
 * travel"): in TypeScript (src/domain/clock.ts, src/domain/limits.ts, src/domain/streaks/state.ts)
 * and in the event scripts' Lua (lua/includes/clock.lua, limits.lua, streak.lua), checked against
 * each other on the same generated inputs (fast-check), the Lua run in a real Redis:
 * - the clock: the script takes the api's assumption exactly when it is what the stored clock gives
 *   (so an event counts in the hour the stored clock says, and a stale assumption is handed back),
 *   with the same days jumped over and the clock the api would store, for every IANA zone, instants
 *   around their offset changes, and clocks held, stale, jumped or absent;
 * - a metric's limit: the period the script counts an event in is the one the api names it by;
 * - a streak: the length and freezes an extension leaves in the script are the ones the api reads
 *   the stored state as (alive through the periods that rest: pauses, days off, days jumped over;
 *   freezes earned and spent), daily, weekly and monthly.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advance, clockArg, clockText, DAY_MS, HOUR_MS, userTime, zoneHour, type StoredClock } from '../../src/domain/clock.js';
import { limitClock, limitPeriodOf } from '../../src/domain/limits.js';
import { firstDayOf, periodOfDay, type Frequency } from '../../src/domain/periods.js';
import { FREQUENCY_LETTER, stateFromHash, streakView } from '../../src/domain/streaks/state.js';
import { streakRule } from '../../src/config/plans/streaks.js';
import { withIncludes } from '../../src/redis/scripts.js';
import type { StreakSettings } from '../../src/model/entities.js';
import type { Snapshot } from '../../src/model/snapshot.js';

/** Runs one helper of lua/includes/ on its arguments (ARGV[1] names which). */
const HARNESS = withIncludes(`
--- @include "hotPlan"
--- @include "clock"
--- @include "limits"
--- @include "streak"
local which = ARGV[1]
if which == 'clock' then
  local ok, first, last, value = clockTake(ARGV[2] ~= '' and ARGV[2] or nil, ARGV[3], ARGV[4])
  if not ok then return {0} end
  return {1, first and string.format('%d', first) or '', last and string.format('%d', last) or '', value}
end
if which == 'limit' then
  local times, max, letter, replay = limitClock(ARGV[2])
  local _, field = limitTake(KEYS[1], times, max, letter, replay, ARGV[3])
  return field or ''
end
-- 'streak': the rule's text, the stored state, the pauses, the days jumped over, the period and day.
local plan = {rule = ARGV[2], ruleDetails = false}
ruleFlags(plan, ARGV[2])
local st = parseStreak(ARGV[3] ~= '' and ARGV[3] or nil)
st.pz = ARGV[4] ~= '' and ARGV[4] or nil
if plan.letter == 'd' and ARGV[5] ~= '' then
  local f, l = string.match(ARGV[5], '^(%-?%d+)-(%-?%d+)$')
  st.jf, st.jl = f + 0, l + 0
end
if st.f ~= plan.letter then st.len, st.last, st.start, st.p = 0, nil, nil, nil end
local extended, _, packed = streakUpdate(KEYS[1], KEYS[2], plan, st, ARGV[6] + 0, ARGV[7] + 0, '1', true, nil, 'UTC')
return {extended and 1 or 0, packed}
`);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    clockRuleHarness(user: string, slot: string, ...args: string[]): Promise<unknown>;
  }
}

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const slot = `test-clock-rule-${process.pid}-${Date.now()}:{h}:`;
const userKey = `${slot}user:t:u`;

const ZONES = ['', 'UTC', ...Intl.supportedValuesOf('timeZone')];
const DAY = DAY_MS;

/**
 * Instants where some zones change offset (found once by a walk over 2026 by day, then a binary
 * search down to the minute), so that the properties meet the DST edges and not only ordinary
 * hours.
 */
function offsetChanges(zones: string[]): { tz: string; ms: number }[] {
  const out: { tz: string; ms: number }[] = [];
  const offset = (tz: string, ms: number) => DateTime.fromMillis(ms, { zone: tz }).offset;
  const start = Date.UTC(2026, 0, 1);
  for (const tz of zones) {
    for (let d = 0; d < 365; d++) {
      let lo = start + d * DAY;
      let hi = lo + DAY;
      if (offset(tz, lo) === offset(tz, hi)) continue;
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (offset(tz, mid) === offset(tz, lo)) lo = mid;
        else hi = mid;
      }
      out.push({ tz, ms: hi });
    }
  }
  return out;
}

const EDGE_ZONES = ['Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Santiago', 'Asia/Tehran', 'Europe/London', 'America/St_Johns'];
const edges = offsetChanges(EDGE_ZONES);

/** An instant and a zone: any zone at an instant of 1990 to 2060, or an offset change's zone near its change. */
const zoned = fc.oneof(
  fc.record({ tz: fc.constantFrom(...ZONES), ms: fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }) }),
  fc.record({ edge: fc.constantFrom(...edges), shift: fc.integer({ min: -3 * HOUR_MS, max: 3 * HOUR_MS }) })
    .map(({ edge, shift }) => ({ tz: edge.tz, ms: edge.ms + shift })),
);

/** A clock as an earlier event could have left it: its hour (maybe held ahead of its zone), when, and a jump. */
const storedClock = (ms: number) => fc.option(fc.record({
  tz: fc.constantFrom(...ZONES),
  before: fc.integer({ min: -2 * HOUR_MS, max: 3 * DAY }),
  held: fc.integer({ min: 0, max: 40 }),
  jump: fc.option(fc.tuple(fc.integer({ min: -40, max: 0 }), fc.integer({ min: 0, max: 1 }))),
}).map(({ tz, before, held, jump }): StoredClock => {
  const at = ms - before;
  const hour = zoneHour(tz, at) + held;
  const day = Math.floor(hour / 24);
  return { hour, at, jumped: jump === null ? null : [day + jump[0], day + jump[0] + jump[1]] };
}), { nil: null });

beforeAll(() => {
  redis.defineCommand('clockRuleHarness', { numberOfKeys: 2, lua: HARNESS });
});
afterAll(async () => {
  const keys = await redis.keys(`${slot}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('the user\'s clock, in TypeScript and in Lua', () => {
  it('takes an assumption exactly when it is what the stored clock gives, and stores what the api would', async () => {
    const sample = fc.sample(zoned.chain(({ tz, ms }) => fc.record({
      tz: fc.constant(tz), ms: fc.constant(ms), stored: storedClock(ms),
      // What the api assumed: the stored clock, none, a stale one, or any other.
      assumed: fc.oneof(fc.constant('stored'), fc.constant('none'), fc.constant('stale'), storedClock(ms)),
    })), { numRuns: 3000, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) });
    for (const { tz, ms, stored, assumed } of sample) {
      const clock: StoredClock | null = assumed === 'stored' ? stored : assumed === 'none' ? null
        : assumed === 'stale' ? (stored === null ? null : { hour: stored.hour - 30, at: stored.at - DAY, jumped: null }) : assumed;
      const truth = userTime(tz, stored, ms);
      const guess = userTime(tz, clock, ms);
      const r = await redis.clockRuleHarness(userKey, slot, 'clock', stored === null ? '' : clockText(stored), clockArg(guess), String(ms)) as unknown[];
      const label = JSON.stringify({ tz, ms, stored, clock });
      expect(r[0] === 1, label).toBe(JSON.stringify(guess) === JSON.stringify(truth));
      if (r[0] === 1) {
        expect(r[1] === '' ? null : [Number(r[1]), Number(r[2])], label).toEqual(truth.jumped);
        expect(r[3], label).toBe(clockText(advance(stored, truth, ms)));
      }
      // The stored clock, assumed as it is, is always taken: a hand-back converges in one attempt.
      if (clock !== stored) {
        const again = await redis.clockRuleHarness(userKey, slot, 'clock', stored === null ? '' : clockText(stored), clockArg(truth), String(ms)) as unknown[];
        expect(again[0], label).toBe(1);
      }
    }
  });

  it('never moves back, and moves east at once', () => {
    fc.assert(fc.property(zoned, zoned, fc.integer({ min: 0, max: 3 * DAY }), ({ tz: a, ms }, { tz: b }, later) => {
      const first = userTime(a, null, ms);
      const c = advance(null, first, ms);
      const next = userTime(b, c, ms + later);
      expect(next.hour).toBeGreaterThanOrEqual(first.hour);
      expect(next.hour).toBe(Math.max(first.hour, zoneHour(b, ms + later)));
      expect(next.held).toBe(zoneHour(b, ms + later) < first.hour);
    }), { numRuns: 2000 });
  });

  it('counts an event of a metric\'s limit in the period the api names it by', async () => {
    const limits = fc.record({ max: fc.constantFrom(1, 5, 20), period: fc.constantFrom('hour' as const, 'day' as const, 'week' as const) });
    const sample = fc.sample(fc.tuple(zoned, limits).chain(([z, l]) => fc.record({ z: fc.constant(z), l: fc.constant(l), stored: storedClock(z.ms) })), 1500);
    const key = `${slot}um:limit`;
    for (const { z, l, stored } of sample) {
      const t = userTime(z.tz, stored, z.ms);
      const field = await redis.clockRuleHarness(key, slot, 'limit', `${limitClock(t)}/${l.max}:${l.period.charAt(0)}`, '1') as string;
      expect(field.split('|')[0], JSON.stringify({ z, l, stored })).toBe(limitPeriodOf(l, t.hour));
    }
  });
});

interface StreakCase {
  rule: StreakSettings;
  packed: string;
  pauses: string;
  jumped: [number, number] | null;
  period: number;
  day: number;
}

/** A stored streak state, a rule and an extension in a later period. */
const streakCase: fc.Arbitrary<StreakCase> = fc.record({
  frequency: fc.constantFrom<Frequency>('daily', 'weekly', 'monthly'),
  freezes: fc.option(fc.record({
    initial: fc.integer({ min: 0, max: 3 }), extra: fc.integer({ min: 0, max: 3 }),
    autoEarnInterval: fc.integer({ min: 0, max: 5 }), autoEarnAmount: fc.integer({ min: 0, max: 2 }),
  }), { nil: null }),
  daysOff: fc.subarray([0, 1, 2, 3, 4, 5, 6], { maxLength: 3 }),
  last: fc.integer({ min: 20000, max: 21000 }),
  len: fc.integer({ min: 0, max: 30 }),
  runBack: fc.option(fc.integer({ min: 0, max: 10 }), { nil: null }),
  frz: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  earnBack: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
  gap: fc.integer({ min: 1, max: 12 }),
  dayIn: fc.integer({ min: 0, max: 30 }),
  pauses: fc.array(fc.tuple(fc.integer({ min: -3, max: 12 }), fc.integer({ min: 0, max: 4 })), { maxLength: 2 }),
  jump: fc.option(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 1 })), { nil: null }),
}).map((g): StreakCase => {
  const letter = FREQUENCY_LETTER[g.frequency];
  const rule: StreakSettings = {
    id: 'streaks', frequency: g.frequency, evaluation: 'any', metrics: [{ metricId: 'm', threshold: 1 }],
    freezes: g.freezes === null ? null : { initial: g.freezes.initial, max: g.freezes.initial + g.freezes.extra, autoEarnInterval: g.freezes.autoEarnInterval, autoEarnAmount: g.freezes.autoEarnAmount },
    daysOff: g.frequency === 'daily' ? g.daysOff : undefined, created: '', updated: '',
  };
  const last = periodOfDay(g.frequency, g.last);
  const period = last + g.gap;
  const first = firstDayOf(g.frequency, period);
  const day = Math.min(first + g.dayIn, firstDayOf(g.frequency, period + 1) - 1);
  const lastDay = firstDayOf(g.frequency, last);
  const len = g.len;
  const packed = [
    letter, len, len > 0 ? last : '', len > 0 ? last - len + 1 : '', g.frz ?? '', g.earnBack === null ? '' : lastDay - g.earnBack, Math.max(len, 3),
    last, 'UTC', '', g.runBack === null || len === 0 ? '' : last - Math.min(g.runBack, len - 1),
  ].join('|');
  const pauses = g.pauses.map(([from, n], i) => [letter, last + from, last + from + n, `p${i}`]);
  const jumped: [number, number] | null = g.jump === null ? null : [lastDay + g.jump[0], lastDay + g.jump[0] + g.jump[1]];
  return { rule, packed, pauses: pauses.length === 0 ? '' : JSON.stringify(pauses), jumped, period, day };
});

describe('a streak\'s extension, in TypeScript and in Lua', () => {
  it('leaves the length and freezes the api reads the stored state as, whatever rests in between', async () => {
    const sample = fc.sample(streakCase, { numRuns: 3000, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) });
    for (const c of sample) {
      const { rule, packed, pauses, jumped, period, day } = c;
      const text = streakRule({ streak: rule } as unknown as Snapshot, 'm', false);
      const h: Record<string, string> = pauses === '' ? { s: packed } : { s: packed, 's:pz': pauses };
      const before = streakView(rule, stateFromHash(h, rule, day, period, jumped), period);
      await redis.del(userKey);
      const [extended, after] = await redis.clockRuleHarness(userKey, slot, 'streak', text, packed, pauses,
        jumped === null ? '' : `${jumped[0]}-${jumped[1]}`, String(period), String(day)) as [number, string];
      const label = JSON.stringify(c);
      expect(extended, label).toBe(1);
      const read = stateFromHash(pauses === '' ? { s: after } : { s: after, 's:pz': pauses }, rule, day, period, jumped);
      expect(read.length, label).toBe(before.length > 0 ? before.length + 1 : 1);
      expect(read.last, label).toBe(period);
      if (rule.freezes !== null) expect(read.freezes, label).toBe(before.freezes ?? 0);
    }
  });
});
