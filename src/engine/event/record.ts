/**
 * A metric event (docs/architecture.md, "The event hot path"): phase 1, one script on the user's
 * partition, sent again when it answers that it needs something first (the user's zone, the plan
 * in full or of the user's streak preferences, time awards accrued, anniversary achievements
 * completed); then phase 2 on the leaderboards. No Postgres, no queue, no
 * configuration parse on the way.
 */
import { randomUUID } from 'node:crypto';
import { boostsArg } from '../../config/plans/points.js';
import { eventMatches, type MetricPlan } from '../../config/plans/achievements.js';
import { advance, clockArg, parseClock, userTime, type StoredClock, type UserTime } from '../../domain/clock.js';
import { periodOfDay } from '../../domain/periods.js';
import { expiresAt } from '../../domain/streaks/state.js';
import { limitClock } from '../../domain/limits.js';
import type { PreparedIdentification } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import type { Metric } from '../../model/entities.js';
import { totalField } from '../../model/fields.js';
import { eventEntry, type EventAward, type LoggedEvent } from '../../model/log.js';
import { WriteCoalescer } from '../../redis/coalesce.js';
import { ScriptCode } from '../../redis/codes.js';
import * as recordEventScript from '../../redis/scripts/recordEvent.js';
import * as recordEventPlanScript from '../../redis/scripts/recordEventPlan.js';
import { processedOf, type Processed, type Refused, type Reply } from '../../redis/scripts/recordEventPlan.js';
import type { UserKeys } from '../../redis/keys.js';
import type { Configuration } from '../../config/configuration.js';
import { isConnectionError } from '../../redis/outage.js';
import { markBreakdown } from '../leaderboards/leave-groups.js';
import type { Deps } from '../deps.js';
import { accrueTime } from '../points/time-awards.js';
import { settleAnniversaries } from '../achievements/anniversaries.js';
import { followUserWrite } from '../users/after-write.js';
import { refused } from '../script-errors.js';
import { EventPhase2, NO_BOARDS, type EventBoards, type Extension } from './phase2.js';
import { rankStreak } from '../streaks/rankings.js';
import { EventReplies, noStreak } from './replies.js';
import { StreakPlans, type UserStreakPlans } from './streak-plans.js';
import { TzCache } from './tz-cache.js';

/** An event as the route validated it. */
export interface EventInput {
  tenant: string;
  metric: Metric;
  userId: string;
  /** The identification the event carries (its user fields), prepared. */
  ident: PreparedIdentification;
  value: number;
  /** Event attributes ('' or null: none), and as JSON ('' when none). */
  attributes: Record<string, string> | null | undefined;
  attributesJson: string;
  /** The user's fields the event carries (but the id), as JSON for the log; '' when none. */
  identificationJson: string;
  idempotencyKey: string;
  /**
   * A batch item sent without an idempotency key: the key of its own it is applied with
   * (src/domain/batches.ts itemKey), kept whatever the idempotency window, and not in the log.
   */
  itemKey?: string;
  /** The batch item the event is ('<batch id>:<index>'), named in its log entry. */
  batchItem?: string;
  /**
   * A batch item: its chunk's id in the partition's batch queue. An erasure of the user made after
   * the chunk was queued drops the item (lua/includes/fence.lua).
   */
  acceptedIn?: string;
  /**
   * A restore replays a logged event: `value` is what it counted (the log's "lc", else its value),
   * counted whole, as it was, whatever the metric's limit says now (lua/includes/limits.lua).
   */
  replay?: boolean;
  /** The event's id when it is given (a restore replays the log); else a new one. */
  eventId?: string;
  /**
   * When the event happened (ms), as its `occurredAt` said (src/domain/event-time.ts): it counts at
   * that time on the user's clock. Absent: when it arrives.
   */
  occurredAt?: number;
  /**
   * An event of a history import (src/domain/import.ts): its log entry says so, and the drain and
   * the live updates tell nothing of it (no webhooks, notifications or live updates).
   */
  imported?: boolean;
  /**
   * The log entry id its placements are ordered by, when it is given (a restore replays the log:
   * the entry's original id, so a placement the restored leaderboards hold already changes nothing).
   */
  seq?: string;
}

/** What the event did: 201 processed, or 202 replayed (an idempotency key used before). */
export type EventOutcome =
  | {
    status: 201; eventId: string; total: string; nowIso: string; completed: string; streak: string;
    awards: readonly EventAward[]; leaderboards: string;
    /** Only when the metric's limit bit: the part of the value that counted and the part ignored. */
    limited?: EventLimited;
  }
  | { status: 202; eventId: string; total: string; streak: string };

/** What the metric's limit did to an event's value. */
export interface EventLimited {
  counted: number;
  ignored: number;
}

/**
 * The answer's `limited`: the part counted (as the script answers it) and the rest of the value,
 * to 9 decimals (a rest past 2^53 has none, and scaled by 10^9 it could pass the largest double).
 */
function limitedOf(value: number, counted: string): EventLimited {
  const c = Number(counted);
  const rest = value - c;
  return { counted: c, ignored: Number.isInteger(rest) ? rest : Math.round(rest * 1e9) / 1e9 };
}

/** The time of an event not prepared yet. */
const NO_TIME: UserTime = { hour: 0, day: 0, date: '', held: false, jumped: null };

/** An instant's ISO string, made once per millisecond: many events share one under load. */
function isoCache(): (ms: number) => string {
  let lastMs = -1;
  let lastIso = '';
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
}

/**
 * What phase 2 needs of a processed event, as its log entry tells it (src/engine/durability/outage-phase2.ts places it again from this):
 * `now` the event's time, `arrivedAt` when it arrived, for an event sent with `occurredAt`.
 */
function loggedEvent(
  tenant: string, userId: string, metricId: string, day: string, now: number, arrivedAt: number | undefined, p: Processed, awards: readonly EventAward[],
  imported: boolean | undefined,
): LoggedEvent {
  const e: LoggedEvent = { t: tenant, u: userId, m: metricId, d: day, ts: now };
  if (arrivedAt !== undefined) e.ra = arrivedAt;
  if (imported === true) e.im = 1;
  if (awards.length > 0) e.pa = [...awards];
  if (p.streak[2] === '1') {
    e.sx = p.streak[0];
    if (p.streak[1] !== '') e.sp = p.streak[1];
  }
  return e;
}

/**
 * An event on its way: what stays from one attempt to the next (what the script's hand-backs
 * change: the zone, the plan, the streak's zone, the anniversaries found), and the attempt's
 * phase 1 as last prepared.
 */
export interface PendingEvent {
  input: EventInput;
  snapshot: Configuration;
  pairs: string[];
  u: UserKeys;
  userMetricKey: string;
  /** The event's time: when it happened (`occurredAt`), else when it arrived. */
  now: number;
  /** When it arrived, for an event sent with `occurredAt`; undefined else. */
  arrivedAt: number | undefined;
  eventId: string;
  value: string;
  setsTz: boolean;
  streakUser: UserStreakPlans | undefined;
  plan: MetricPlan;
  window: string;
  head: string;
  flags: string;
  idempotency: string;
  nowIso: string;
  creation: string;
  /** The plan by id; in full once the script says it does not hold it. */
  planFull: string;
  total: string;
  matches: string;
  tz: string;
  /** The user's clock as assumed (the one the cache knows, else the one the script answered). */
  clock: StoredClock | null;
  /**
   * Anniversary achievements the user's event found come, completed before it (their ids, with
   * the composites they completed): the event's answer lists them with its own.
   */
  anniversaries: string;
  // The attempt's phase 1, once prepared: the user's time, on their clock.
  time: UserTime;
  day: string;
  period: number;
  dayIndex: number;
  boards: EventBoards;
  /** recordEvent's arguments (a metric without features), else recordEventPlan's. */
  plain: recordEventScript.Args | null;
  planned: recordEventPlanScript.Args | null;
}

export class EventRecorder {
  private readonly deps: Deps;
  private readonly tzCache = new TzCache();
  private readonly streakPlans = new StreakPlans();
  readonly coalescer: WriteCoalescer;
  readonly phase2: EventPhase2;
  private readonly replies = new EventReplies();
  private readonly isoOf = isoCache();
  private readonly noStreakJson = noStreak('daily');

  constructor(deps: Deps) {
    this.deps = deps;
    this.coalescer = new WriteCoalescer(deps.redis);
    this.phase2 = new EventPhase2(deps, this.coalescer);
  }

  async record(input: EventInput): Promise<EventOutcome> {
    return this.attempts(this.begin(input, null), null);
  }

  /** The zone the user's events are assumed in: the one the cache knows, else ''. */
  knownZone(tenant: string, userId: string): string {
    return this.tzCache.get(tenant, userId);
  }

  /** The user's clock as the cache knows it (null: none known). */
  knownClock(tenant: string, userId: string): StoredClock | null {
    return this.tzCache.clock(tenant, userId);
  }

  /**
   * An event's state before its first attempt; `tz` the zone to assume when the event sets none
   * (null: the one the cache knows), `assumed` the user's clock to assume (undefined: the one the
   * cache knows).
   */
  begin(input: EventInput, tz: string | null, assumed?: StoredClock | null): PendingEvent {
    const { deps, streakPlans } = this;
    const { keys, store, clock, settings } = deps;
    const { tenant, metric, userId, ident, value: numeric, idempotencyKey } = input;
    const snapshot = store.current;
    const u = keys.forUser(tenant, userId);
    const arrival = clock.now();
    const now = input.occurredAt ?? arrival;
    const eventId = input.eventId ?? randomUUID();
    // Every metric has a plan (compilePlans); `hot` is '' for one without features. A user with
    // streak preferences has one of their own (the script says when they are not the ones assumed).
    const streakUser = streakPlans.get(tenant, userId);
    const plan = streakUser === undefined ? snapshot.plans.get(metric.id)! : streakPlans.planOf(streakUser, snapshot, metric.id);
    // A batch item's own key is kept until its chunk is acknowledged (src/engine/batches/process.ts).
    const scriptKey = idempotencyKey !== '' ? idempotencyKey : input.itemKey ?? '';
    const windowMs = idempotencyKey === '' && scriptKey !== '' ? 0 : settings.idempotencyWindowMs;
    const window = windowMs === 0 ? '' : `:${arrival}:${arrival + windowMs}`;
    const setsTz = ident.tz !== null;
    const head = (setsTz ? '1' : '0') + ident.needsEmail + (Number.isSafeInteger(numeric) ? '1' : '0');
    const alone = plan.streakAlone;
    const nowIso = this.isoOf(now);
    return {
      input, snapshot,
      // An attribute some board breaks down by is marked: the script says when it changes.
      pairs: markBreakdown(ident.pairs, snapshot),
      u, userMetricKey: keys.userMetric(u, metric.id), now, arrivedAt: input.occurredAt === undefined ? undefined : arrival, eventId, value: String(numeric), setsTz, streakUser, plan, window, head,
      flags: head + (alone !== null && numeric >= alone ? '1' : '0') + window,
      idempotency: scriptKey === '' ? '' : `${eventId}i:${scriptKey}`,
      nowIso, creation: nowIso + userId, planFull: '', total: totalField(metric.id), matches: eventMatches(plan, input.attributes),
      tz: ident.tz ?? tz ?? this.tzCache.get(tenant, userId), clock: assumed === undefined ? this.tzCache.clock(tenant, userId) : assumed,
      anniversaries: '', time: NO_TIME, day: '', period: 0, dayIndex: 0, boards: NO_BOARDS, plain: null, planned: null,
    };
  }

  /**
   * The attempts of an event, each at most once or twice: the plan (again after the preferences),
   * the preferences, the zone, time awards, anniversaries, the streak's zone; then the event.
   * `first`: the first attempt's phase 1, prepared and answered already (a run's: ./record-run.ts).
   */
  async attempts(e: PendingEvent, first: Reply | null): Promise<EventOutcome> {
    for (let attempt = 0; attempt < 8; attempt++) {
      let answer: Reply;
      if (attempt === 0 && first !== null) {
        answer = first;
      } else {
        this.prepare(e);
        answer = await this.send(e);
      }
      const done = typeof answer === 'string' ? await this.settle(e, answer) : await this.handBack(e, answer);
      if (done !== null) return done;
    }
    throw fail('unavailable', 'the user time zone, points or streak preferences kept changing during the request; retry');
  }

  /**
   * The attempt's phase 1: the user's time on their clock (the zone and the clock assumed), the day
   * and periods, the log entry, the boards, the script's arguments.
   */
  prepare(e: PendingEvent): void {
    const { deps, phase2 } = this;
    const { input, snapshot, plan, tz, now } = e;
    const { tenant, metric, userId } = input;
    const time = userTime(tz, e.clock, now);
    const day = time.date;
    const rule = snapshot.streak;
    // recordEventPlan's '<period>|<periods>' ('|' without a streak rule).
    let periods = '|';
    if (rule !== null) {
      e.period = periodOfDay(rule.frequency, time.day);
      e.dayIndex = time.day;
      periods = `${e.period}|${time.day}`;
    }
    e.time = time;
    e.day = day;
    const entry = eventEntry({
      eventId: e.eventId, tenant, userId, metricId: metric.id, value: e.value, ts: now, day, idempotencyKey: input.idempotencyKey,
      attributesJson: input.attributesJson, processId: deps.processId, tz, identificationJson: input.identificationJson, batchItem: input.batchItem,
      heldHour: time.held ? time.hour : undefined, arrivedAt: e.arrivedAt, imported: input.imported,
    });
    // Metrics without features (no achievement, streak, points, or leaderboard that needs a run
    // sum or a group) take the script that knows nothing of them. The small arguments travel as
    // one string (ioredis and Redis pay for every argument).
    e.boards = phase2.plan(tenant, metric.id, day, plan, tz, now, input.value > 0, e.arrivedAt, input.imported === true);
    if (plan.hot === '') {
      e.plain = {
        flags: e.flags, total: e.total, value: e.value, day, tz, now, clock: clockArg(time), accepted: input.acceptedIn ?? '', idempotency: e.idempotency,
        creation: e.creation, entry, pairs: e.pairs,
      };
      e.planned = null;
    } else {
      e.planned = {
        flags: e.flags, value: e.value, day, tz, now, tenant, matches: e.matches, periods, boards: e.boards.arg, plan: plan.arg.id,
        creation: e.creation, entry, idempotency: e.idempotency, planFull: e.planFull,
        limits: plan.limits === null ? '' : limitClock(time) + plan.limits + (input.replay === true ? '=' : ''), clock: clockArg(time),
        accepted: input.acceptedIn ?? '',
        boosts: plan.awardsPoints && snapshot.pointsBoosts.size > 0 ? boostsArg(snapshot, tenant, userId, day) : '', pairs: e.pairs,
      };
      e.plain = null;
    }
  }

  /** Phase 1 of the attempt prepared, alone. */
  private send(e: PendingEvent): Promise<Reply> {
    const { redis } = this.deps;
    this.coalescer.hold();
    const phase1 = e.plain !== null
      ? recordEventScript.run(redis, { user: e.u.user, userMetric: e.userMetricKey, users: e.u.users, log: e.u.log }, e.plain)
      : recordEventPlanScript.run(redis, { user: e.u.user, userMetric: e.userMetricKey, slot: e.u.slot, log: e.u.log }, e.planned!);
    // The entry gates' falls counters, read after phase 1 ran: on one Redis, last in the batch of
    // writes that carries it (Redis runs them in that order); on a Cluster the board may live on
    // another node, so they are read once phase 1 has answered, and only where the event may be
    // skipped.
    if (!redis.isCluster) this.phase2.readGates(e.boards);
    return phase1;
  }

  /** What a hand-back asks done before the next attempt; null then, or the event's outcome (a replay); a refusal throws. */
  async handBack(e: PendingEvent, r: Refused): Promise<EventOutcome | null> {
    const { deps, streakPlans, tzCache, replies } = this;
    const { metrics } = deps;
    const { tenant, userId, metric, value: numeric } = e.input;
    const { snapshot } = e;
    const code = r[0];
    if (r[0] === ScriptCode.REPLAYED) {
      metrics.events.replayed++;
      const rule = snapshot.streak;
      const streak = rule === null ? this.noStreakJson : replies.streakOf(rule, r[3], e.dayIndex, e.period, e.time.jumped).json;
      return { status: 202, eventId: r[1], total: r[2], streak };
    }
    if (code === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL) throw refused(code);
    if (code === ScriptCode.ERASED) throw fail('user_erased');
    if (code === ScriptCode.TOTAL_OUT_OF_RANGE) throw refused(code, metric.key);
    if (code === ScriptCode.PLAN_UNKNOWN) {
      e.planFull = e.plan.arg.full;
      return null;
    }
    if (code === ScriptCode.TIME_DUE) {
      // Time granted points since the user last acted: accrue them, then send the event again.
      await accrueTime(deps, tenant, userId);
      return null;
    }
    if (code === ScriptCode.ANNIVERSARY_DUE) {
      // The user's next anniversary has come on their calendar (the event's zone): completed
      // first, then the event sent again.
      const done = await settleAnniversaries(deps, tenant, userId, e.tz);
      if (done !== null && done.length > 0) e.anniversaries = e.anniversaries === '' ? done.join(',') : `${e.anniversaries},${done.join(',')}`;
      return null;
    }
    if (code === ScriptCode.OUT_OF_POINTS || code === ScriptCode.POINTS_OUT_OF_RANGE) {
      throw refused(code, snapshot.pointsSystems.get(String(r[1]))?.key ?? String(r[1]));
    }
    if (code === ScriptCode.STREAK_PREFERENCES) {
      // The user's streak preferences are not the ones assumed: the plan of those stored.
      e.streakUser = streakPlans.set(tenant, userId, String(r[1]), String(r[2]));
      e.plan = e.streakUser === undefined ? snapshot.plans.get(metric.id)! : streakPlans.planOf(e.streakUser, snapshot, metric.id);
      const alone = e.plan.streakAlone;
      e.flags = e.head + (alone !== null && numeric >= alone ? '1' : '0') + e.window;
      e.planFull = '';
      return null;
    }
    if (code === ScriptCode.CLOCK) {
      // The user's clock is not the one assumed: work the event's time out again from the stored one.
      e.clock = parseClock(r[1] as string);
      tzCache.setClock(tenant, userId, e.clock);
      return null;
    }
    // TZ_MISMATCH: the user's stored zone is another; recompute the periods and try again.
    e.tz = r[1] as string;
    tzCache.set(tenant, userId, e.tz);
    return null;
  }

  /** A processed event's phase 2 and answer. */
  async settle(e: PendingEvent, answer: string): Promise<EventOutcome> {
    const { deps, tzCache, coalescer, phase2, replies } = this;
    const { metrics, stats } = deps;
    const { input, snapshot, boards, tz, now, day, dayIndex, period, time } = e;
    const { tenant, userId, metric, value: numeric } = input;
    const rule = snapshot.streak;
    const p = processedOf(answer);
    if (input.seq !== undefined) p.seq = input.seq;
    metrics.events.processed++;
    if (e.setsTz) tzCache.set(tenant, userId, tz);
    tzCache.setClock(tenant, userId, advance(e.clock, time, now));
    const streak = rule === null ? null : replies.streakOf(rule, p.streak, dayIndex, period, time.jumped);
    const state = streak === null ? null : streak.state;
    // The awards, as the event script logs them (JSON): parsed once for the response and phase 2.
    const awards = replies.awardsOf(p.awards);
    const extended: Extension | null = rule !== null && state !== null && state.extended
      ? { length: state.length, expiry: expiresAt(rule, state, period, tz) ?? now } : null;
    // An excluded user's event is placed on no ranking (src/engine/fairplay/exclude.ts).
    const ranks = !p.excluded && phase2.ranks(boards, awards.length > 0, extended !== null);
    // The streak rankings take an extension before it is answered (a read that follows sees
    // it), alongside its placements. (Phase 1 wrote the points totals.)
    if (extended !== null && !p.excluded) coalescer.hold();
    const standing = extended === null || p.excluded ? null : rankStreak(deps, tenant, userId, { ...extended, longest: state!.longest }, now, p.seq, e.arrivedAt !== undefined)
      .then(() => null, (err: unknown) => err); // settled here: awaited after the placements
    // Then what follows a user's write, in its one order (src/engine/users/after-write.ts), all
    // before the answer, the writes that need not wait sent with this turn's. Phase 1 ran, so the
    // event counts (201): a departure or placements that fail on Redis's connection are made once
    // it answers again (src/engine/durability/outage-phase2.ts). A 503 would have a client without
    // an Idempotency-Key send it again, and count it twice.
    const leaderboards = await followUserWrite({
      // A new user or a completion changes the tenant's statistics. Only achievements (their
      // rarity) and points systems (their summaries' user counts) show them: with neither
      // configured nothing moves it, and a plain metric's event makes no second round trip.
      stats: (p.created || p.completed !== '') && (snapshot.achievements.size > 0 || snapshot.pointsSystems.size > 0)
        ? () => { coalescer.hold(); return stats.changed(tenant); } : null,
      // The groups of the values the event's identification changed.
      leave: p.moved === '' ? null : () => deps.placements.leave(
        tenant, userId, p.moved, null, tz, now, p.seq, ranks ? loggedEvent(tenant, userId, metric.id, day, now, e.arrivedAt, p, awards, input.imported) : null,
      ),
      // The event's script noted a new user's time triggers and first anniversary.
      created: null,
      // The metric's, the awards' and the streak's boards.
      place: async (left) => {
        let placed = '{}';
        let pending = false;
        if (ranks && left) {
          try {
            placed = phase2.skippedNow(boards, p, awards.length > 0, extended !== null)
              ?? await phase2.rank(boards, p, awards, tenant, userId, day, tz, now, extended, (p.counted === undefined ? numeric : Number(p.counted)) === 0);
          } catch (err) {
            if (!isConnectionError(err)) throw err;
            pending = true;
          }
        }
        const failed = standing === null ? null : await standing;
        if (failed !== null) {
          if (!isConnectionError(failed)) throw failed;
          pending = true;
        }
        if (pending) deps.placements.add(loggedEvent(tenant, userId, metric.id, day, now, e.arrivedAt, p, awards, input.imported), p.seq, tenant, userId);
        return placed;
      },
    });
    const completed = e.anniversaries === '' ? p.completed : p.completed === '' ? e.anniversaries : `${e.anniversaries},${p.completed}`;
    const done: EventOutcome = {
      status: 201, eventId: e.eventId, total: p.total, nowIso: e.nowIso, completed, streak: streak === null ? this.noStreakJson : streak.json,
      awards, leaderboards,
    };
    if (p.counted !== undefined) done.limited = limitedOf(numeric, p.counted);
    return done;
  }
}
