/**
 * A metric event (docs/architecture.md, "The event hot path"): phase 1, one script on the user's
 * partition, sent again when it answers that it needs something first (the user's zone, the plan
 * in full or of the user's streak preferences, time awards accrued, anniversary achievements
 * completed); then phase 2 on the leaderboards. No Postgres, no queue, no
 * configuration parse on the way.
 */
import { randomUUID } from 'node:crypto';
import { boostsArg } from '../../config/plans/points.js';
import { eventMatches } from '../../config/plans/achievements.js';
import { currentPeriod } from '../../domain/periods.js';
import { expiresAt } from '../../domain/streaks/state.js';
import { localDay } from '../../domain/time.js';
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
import { processedOf, type Processed } from '../../redis/scripts/recordEventPlan.js';
import { isConnectionError } from '../../redis/outage.js';
import { markBreakdown } from '../leaderboards/leave-groups.js';
import type { Deps } from '../deps.js';
import { accrueTime } from '../points/time-awards.js';
import { settleAnniversaries } from '../achievements/anniversaries.js';
import { followUserWrite } from '../users/after-write.js';
import { refused } from '../script-errors.js';
import { EventPhase2, type Extension } from './phase2.js';
import { rankStreak } from '../streaks/rankings.js';
import { EventReplies, noStreak } from './replies.js';
import { StreakPlans } from './streak-plans.js';
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
   * A restore replays a logged event: `value` is what it counted (the log's "lc", else its value),
   * counted whole, as it was, whatever the metric's limit says now (lua/includes/limits.lua).
   */
  replay?: boolean;
  /** The event's id when it is given (a restore replays the log); else a new one. */
  eventId?: string;
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

/** The answer's `limited`: the part counted (as the script answers it) and the rest of the value. */
function limitedOf(value: number, counted: string): EventLimited {
  const c = Number(counted);
  return { counted: c, ignored: Math.round((value - c) * 1e9) / 1e9 };
}

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

/** What phase 2 needs of a processed event, as its log entry tells it (src/engine/durability/outage-phase2.ts places it again from this). */
function loggedEvent(
  tenant: string, userId: string, metricId: string, day: string, now: number, p: Processed, awards: readonly EventAward[],
): LoggedEvent {
  const e: LoggedEvent = { t: tenant, u: userId, m: metricId, d: day, ts: now };
  if (awards.length > 0) e.pa = [...awards];
  if (p.streak[2] === '1') {
    e.sx = p.streak[0];
    if (p.streak[1] !== '') e.sp = p.streak[1];
  }
  return e;
}

export class EventRecorder {
  private readonly deps: Deps;
  private readonly tzCache = new TzCache();
  private readonly streakPlans = new StreakPlans();
  private readonly coalescer: WriteCoalescer;
  private readonly phase2: EventPhase2;
  private readonly replies = new EventReplies();
  private readonly isoOf = isoCache();
  private readonly noStreakJson = noStreak('daily');

  constructor(deps: Deps) {
    this.deps = deps;
    this.coalescer = new WriteCoalescer(deps.redis);
    this.phase2 = new EventPhase2(deps, this.coalescer);
  }

  async record(input: EventInput): Promise<EventOutcome> {
    const { deps, tzCache, streakPlans, coalescer, phase2, replies } = this;
    const { redis, keys, store, clock, settings, metrics, stats } = deps;
    const { tenant, metric, userId, ident, value: numeric, idempotencyKey } = input;
    const snapshot = store.current;
    // An attribute some board breaks down by is marked: the script says when it changes.
    const pairs = markBreakdown(ident.pairs, snapshot);
    const u = keys.forUser(tenant, userId);
    const userMetricKey = keys.userMetric(u, metric.id);
    const now = clock.now();
    const eventId = input.eventId ?? randomUUID();
    const value = String(numeric);
    const setsTz = ident.tz !== null;
    // Every metric has a plan (compilePlans); `hot` is '' for one without features. A user with
    // streak preferences has one of their own (the script says when they are not the ones assumed).
    let streakUser = streakPlans.get(tenant, userId);
    let plan = streakUser === undefined ? snapshot.plans.get(metric.id)! : streakPlans.planOf(streakUser, snapshot, metric.id);
    // A batch item's own key is kept until its chunk is acknowledged (src/engine/batches/process.ts).
    const scriptKey = idempotencyKey !== '' ? idempotencyKey : input.itemKey ?? '';
    const windowMs = idempotencyKey === '' && scriptKey !== '' ? 0 : settings.idempotencyWindowMs;
    const window = windowMs === 0 ? '' : `:${now}:${now + windowMs}`;
    const head = (setsTz ? '1' : '0') + ident.needsEmail + (Number.isSafeInteger(numeric) ? '1' : '0');
    let alone = plan.streakAlone;
    let flags = head + (alone !== null && numeric >= alone ? '1' : '0') + window;
    const idempotency = scriptKey === '' ? '' : `${eventId}i:${scriptKey}`;
    const nowIso = this.isoOf(now);
    const creation = nowIso + userId;
    // The plan by id; in full once the script says it does not hold it.
    let planFull = '';
    const total = totalField(metric.id);
    const matches = eventMatches(plan, input.attributes);
    let tz = ident.tz ?? tzCache.get(tenant, userId);
    const rule = snapshot.streak;
    let streakZone: string | null = null;
    // Anniversary achievements the user's event found come, completed before it (their ids, with
    // the composites they completed): the event's answer lists them with its own.
    let anniversaries = '';

    // Each hand-back at most once or twice: the plan (again after the preferences), the preferences, the
    // zone, time awards, anniversaries, the streak's zone; then the event.
    for (let attempt = 0; attempt < 8; attempt++) {
      const day = localDay(tz, now);
      // recordEventPlan's '<period>|<periods>' ('|' without a streak rule).
      let periods = '|';
      let period = 0;
      let dayIndex = 0;
      if (rule !== null) {
        const current = currentPeriod(rule.frequency, tz, now);
        period = current.period;
        dayIndex = current.day;
        periods = `${period}|${current.day}`;
        if (streakZone !== null) periods += `:${currentPeriod(rule.frequency, streakZone, now).period}`;
      }
      const entry = eventEntry({
        eventId, tenant, userId, metricId: metric.id, value, ts: now, day, idempotencyKey, attributesJson: input.attributesJson,
        processId: deps.processId, tz, identificationJson: input.identificationJson, batchItem: input.batchItem,
      });
      coalescer.hold();
      // Metrics without features (no achievement, streak, points, or leaderboard that needs a run
      // sum or a group) take the script that knows nothing of them. The small arguments travel as
      // one string (ioredis and Redis pay for every argument).
      const boards = phase2.plan(tenant, metric.id, day, plan, tz, now, numeric > 0);
      const phase1 = plan.hot === ''
        ? recordEventScript.run(redis, { user: u.user, userMetric: userMetricKey, users: u.users, log: u.log }, {
          flags, total, value, day, tz, idempotency, creation, entry, pairs,
        })
        : recordEventPlanScript.run(redis, { user: u.user, userMetric: userMetricKey, slot: u.slot, log: u.log }, {
          flags, value, day, tz, now, tenant, matches, periods, boards: boards.arg, plan: plan.arg.id, creation, entry, idempotency, planFull,
          limits: plan.limits === null ? '' : limitClock(tz, now) + plan.limits + (input.replay === true ? '=' : ''),
          boosts: plan.awardsPoints && snapshot.pointsBoosts.size > 0 ? boostsArg(snapshot, userId, day) : '', pairs,
        });
      // The entry gates' falls counters, read after phase 1 ran: on one Redis, last in the batch of
      // writes that carries it (Redis runs them in that order); on a Cluster the board may live on
      // another node, so they are read once phase 1 has answered, and only where the event may be
      // skipped.
      if (!redis.isCluster) phase2.readGates(boards);
      const answer = await phase1;
      if (typeof answer === 'string') {
        const p = processedOf(answer);
        if (input.seq !== undefined) p.seq = input.seq;
        metrics.events.processed++;
        if (setsTz) tzCache.set(tenant, userId, tz);
        const streak = rule === null ? null : replies.streakOf(rule, p.streak, dayIndex, period);
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
        const standing = extended === null || p.excluded ? null : rankStreak(deps, tenant, userId, { ...extended, longest: state!.longest }, now, p.seq)
          .then(() => null, (err: unknown) => err); // settled here: awaited after the placements
        // Then what follows a user's write, in its one order (src/engine/users/after-write.ts), all
        // before the answer, the writes that need not wait sent with this turn's. Phase 1 ran, so
        // the event counts (201): a departure or placements that fail on Redis's connection are made
        // once it answers again (src/engine/durability/outage-phase2.ts). A 503 would have a client
        // without an Idempotency-Key send it again, and count it twice.
        const leaderboards = await followUserWrite({
          // A new user or a completion changes the tenant's statistics. Only achievements (their
          // rarity) and points systems (their summaries' user counts) show them: with neither
          // configured nothing moves it, and a plain metric's event makes no second round trip.
          stats: (p.created || p.completed !== '') && (snapshot.achievements.size > 0 || snapshot.pointsSystems.size > 0)
            ? () => { coalescer.hold(); return stats.changed(tenant); } : null,
          // The groups of the values the event's identification changed.
          leave: p.moved === '' ? null : () => deps.placements.leave(
            tenant, userId, p.moved, null, tz, now, p.seq, ranks ? loggedEvent(tenant, userId, metric.id, day, now, p, awards) : null,
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
                  ?? await phase2.rank(boards, p, awards, tenant, userId, day, tz, now, extended);
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
            if (pending) deps.placements.add(loggedEvent(tenant, userId, metric.id, day, now, p, awards), p.seq, tenant, userId);
            return placed;
          },
        });
        const completed = anniversaries === '' ? p.completed : p.completed === '' ? anniversaries : `${anniversaries},${p.completed}`;
        const done: EventOutcome = {
          status: 201, eventId, total: p.total, nowIso, completed, streak: streak === null ? this.noStreakJson : streak.json,
          awards, leaderboards,
        };
        if (p.counted !== undefined) done.limited = limitedOf(numeric, p.counted);
        return done;
      }
      const r = answer;
      const code = r[0];
      if (r[0] === ScriptCode.REPLAYED) {
        metrics.events.replayed++;
        const streak = rule === null ? this.noStreakJson : replies.streakOf(rule, r[3], dayIndex, period).json;
        return { status: 202, eventId: r[1], total: r[2], streak };
      }
      if (code === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL) throw refused(code);
      if (code === ScriptCode.TOTAL_OUT_OF_RANGE) throw refused(code, metric.key);
      if (code === ScriptCode.PLAN_UNKNOWN) {
        planFull = plan.arg.full;
        continue;
      }
      if (code === ScriptCode.TIME_DUE) {
        // Time granted points since the user last acted: accrue them, then send the event again.
        await accrueTime(deps, tenant, userId);
        continue;
      }
      if (code === ScriptCode.ANNIVERSARY_DUE) {
        // The user's next anniversary has come on their calendar (the event's zone): completed
        // first, then the event sent again.
        const done = await settleAnniversaries(deps, tenant, userId, tz);
        if (done !== null && done.length > 0) anniversaries = anniversaries === '' ? done.join(',') : `${anniversaries},${done.join(',')}`;
        continue;
      }
      if (code === ScriptCode.OUT_OF_POINTS || code === ScriptCode.POINTS_OUT_OF_RANGE) {
        throw refused(code, snapshot.pointsSystems.get(String(r[1]))?.key ?? String(r[1]));
      }
      if (code === ScriptCode.STREAK_PREFERENCES) {
        // The user's streak preferences are not the ones assumed: the plan of those stored.
        streakUser = streakPlans.set(tenant, userId, String(r[1]), String(r[2]));
        plan = streakUser === undefined ? snapshot.plans.get(metric.id)! : streakPlans.planOf(streakUser, snapshot, metric.id);
        alone = plan.streakAlone;
        flags = head + (alone !== null && numeric >= alone ? '1' : '0') + window;
        planFull = '';
        continue;
      }
      if (code === ScriptCode.STREAK_ZONE) {
        // The user moved zone since the streak's last period: judge the period in both zones.
        streakZone = r[1] as string;
        continue;
      }
      // TZ_MISMATCH: the user's stored zone is another; recompute the periods and try again.
      tz = r[1] as string;
      tzCache.set(tenant, userId, tz);
    }
    throw fail('unavailable', 'the user time zone, points or streak preferences kept changing during the request; retry');
  }
}
