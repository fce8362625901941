/**
 * The codec of lua/recordEventPlan-4.lua: phase 1 of a metric event with features (a Redis function
 * of the event path's library), and the answer it shares with lua/recordEvent-4.lua.
 *
 * The small arguments travel as one '|'-separated string, the plan by id (its text in full only
 * when the library answers that it does not hold it, then parsed once and kept:
 * lua/includes/hotPlan.lua), the boosts as JSON (decoded only when an award is made). Not msgpack:
 * on this path every ARGV element costs Redis more than a capture of string.match, and decoding a
 * msgpack plan on every event cost about 16,000 Lua instructions (docs/performance.md, the streak
 * rule read in place). The keys the event writes only sometimes are built in the script from
 * KEYS[3], the partition's slot (`UserKeys.slot`), as its header says: a key in KEYS costs every
 * event, written or not. The event log, which every processed event writes, is KEYS[4].
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { ScriptCode } from '../codes.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    recordEventPlan(user: string, userMetric: string, slot: string, log: string, ...args: string[]): Result<Reply, Context>;
  }
}

export interface Keys {
  user: string;
  /** `Keys.userMetric(u, metricId)` */
  userMetric: string;
  /** `UserKeys.slot`: the base of the partition's keys the script writes only when the event needs them (its header). */
  slot: string;
  /** `UserKeys.log`: the partition's event log (every processed event writes it). */
  log: string;
}

/** The event's arguments (the script's header says each one's form). */
export interface Args {
  /** One character each, then ':<now ms>:<expiry ms>' when the idempotency window is finite. */
  flags: string;
  value: string;
  /** The local day of the event, YYYY-MM-DD. */
  day: string;
  tz: string;
  now: number;
  tenant: string;
  /** '1'/'0' per event-filtered achievement or points trigger of the plan. */
  matches: string;
  /** '<period>|<day index>' on the user's clock, or '|' without a streak rule. */
  periods: string;
  /** The leaderboards' '<run fields>#<attribute fields>', or ''. */
  boards: string;
  /** '' without limits; else the user's clock, the metric's limit, '=' for a replay (lua/includes/limits.lua). */
  limits: string;
  /** What the api assumed of the user's clock (src/domain/clock.ts clockArg). */
  clock: string;
  /** A batch item's chunk id in the partition's batch queue (lua/includes/fence.lua); '' for an event. */
  accepted: string;
  /** The plan's id (with a user's own streak rule: src/config/plans/streaks.ts). */
  plan: string;
  /** '<now, ISO-8601, 24 characters><user id>' */
  creation: string;
  /** The log entry (JSON). */
  entry: string;
  /** '' or '<event id><i:key>' */
  idempotency: string;
  /** '' or the plan in full. */
  planFull: string;
  /** The boosts that may apply (JSON) or ''. */
  boosts: string;
  /** User hash field/value pairs of the identification. */
  pairs: string[];
}

/** What the event scripts hand back instead of processing the event (lua/recordEventPlan-4.lua, "Returns"). */
export type Refused =
  | [typeof ScriptCode.REPLAYED, eventId: string, total: string, streak: string]
  | [typeof ScriptCode.TZ_MISMATCH, storedTz: string]
  | [typeof ScriptCode.SUBSCRIBE_WITHOUT_EMAIL]
  | [typeof ScriptCode.CLOCK, clock: string]
  | [typeof ScriptCode.OUT_OF_POINTS, systemId: string]
  | [typeof ScriptCode.POINTS_OUT_OF_RANGE, systemId: string]
  | [typeof ScriptCode.TIME_DUE]
  | [typeof ScriptCode.PLAN_UNKNOWN]
  | [typeof ScriptCode.TOTAL_OUT_OF_RANGE]
  | [typeof ScriptCode.STREAK_PREFERENCES, token: string, preferences: string]
  | [typeof ScriptCode.ANNIVERSARY_DUE]
  | [typeof ScriptCode.ERASED];

/** A processed event (one string: processedOf reads it), or a hand-back. */
export type Reply = string | Refused;

/**
 * Phase 1. Without identification pairs, the trailing empty arguments are left out: Redis builds
 * ARGV element by element into a table that doubles as it grows.
 */
export function run(redis: RedisClient, k: Keys, a: Args): Promise<Reply> {
  const small = smallOf(a);
  if (a.pairs.length > 0) {
    return redis.recordEventPlan(k.user, k.userMetric, k.slot, k.log, small, a.creation, a.entry, a.idempotency, a.planFull, a.boosts, ...a.pairs);
  }
  if (a.boosts !== '') return redis.recordEventPlan(k.user, k.userMetric, k.slot, k.log, small, a.creation, a.entry, a.idempotency, a.planFull, a.boosts);
  if (a.planFull !== '') return redis.recordEventPlan(k.user, k.userMetric, k.slot, k.log, small, a.creation, a.entry, a.idempotency, a.planFull);
  if (a.idempotency !== '') return redis.recordEventPlan(k.user, k.userMetric, k.slot, k.log, small, a.creation, a.entry, a.idempotency);
  return redis.recordEventPlan(k.user, k.userMetric, k.slot, k.log, small, a.creation, a.entry);
}

function smallOf(a: Args): string {
  return `${a.flags}|${a.value}|d:${a.day}|${a.tz}|${a.now}|${a.tenant}|${a.matches}|${a.periods}|${a.boards}|${a.limits}|${a.clock}|${a.accepted}|${a.plan}`;
}

/** The event's arguments as `run` sends them after its keys (for lua/recordEventRun-4.lua). */
export function argsOf(a: Args): string[] {
  const args = [smallOf(a), a.creation, a.entry, a.idempotency, a.planFull, a.boosts, ...a.pairs];
  if (a.pairs.length === 0) while (args.length > 3 && args[args.length - 1] === '') args.pop();
  return args;
}

/** A processed event as the event scripts answer it. */
export interface Processed {
  /** The metric's total, as Redis holds it. */
  total: string;
  /** The part of the value that counted when the metric's limit bit (its text), else undefined. */
  counted?: string;
  created: boolean;
  /** The user is excluded from the rankings (src/engine/fairplay/exclude.ts): the event is placed on none. */
  excluded: boolean;
  /** The streak as stored, its pauses, and '1' when this event extended it. */
  streak: [string, string, string];
  /** The points awarded (EventAward[] as JSON), or ''. */
  awards: string;
  /** The ids of the achievements this event completed, comma-separated, or ''. */
  completed: string;
  /** The id of the event's log entry: phase 2 keeps the user's latest event's value by it. */
  seq: string;
  /** The run sums and breakdown attribute values asked for (JSON array of strings), or ''. */
  boards: string;
  /** The breakdown attributes the event's identification changed, with their old values (JSON), or ''. */
  moved: string;
}

/**
 * Splits the scripts' answer: nine fields, separated by newlines, the last one JSON; a tenth (JSON)
 * when the identification moved the user's breakdown attributes; the first ends with the part
 * counted when a limit bit; the second is 'x' for an excluded user.
 */
export function processedOf(reply: string): Processed {
  const f = reply.split('\n', 8);
  let boardsAt = 8;
  for (const field of f) boardsAt += field.length;
  const movedAt = reply.indexOf('\n', boardsAt);
  // '<total>|<counted>' when the metric's limit bit.
  const bar = f[0].indexOf('|');
  const total = bar < 0 ? f[0] : f[0].slice(0, bar);
  const p: Processed = {
    total, created: f[1] === '1', excluded: f[1] === 'x', streak: [f[2], f[3], f[4]], awards: f[5], completed: f[6], seq: f[7],
    boards: movedAt < 0 ? reply.slice(boardsAt) : reply.slice(boardsAt, movedAt), moved: movedAt < 0 ? '' : reply.slice(movedAt + 1),
  };
  if (bar >= 0) p.counted = f[0].slice(bar + 1);
  return p;
}
