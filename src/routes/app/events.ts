/**
 * POST {app}/metrics/{key}/event: the hot path (ARCHITECTURE.md §3). One Lua script on the user's
 * partition does the idempotency check, the user upsert, the total, the day bucket and the log
 * entry; no Postgres, no queue, no configuration parse on the way.
 */
import { randomUUID } from 'node:crypto';
import { NOT_PRINTABLE_ASCII, principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { fail } from '../../lib/errors.js';
import type { Reply, Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import { localDay, localMinute } from '../../domain/time.js';
import { currentPeriod } from '../../domain/periods.js';
import { expiresAt, stateFromHash, streakJson, streakView, type StreakState } from '../../domain/streaks.js';
import { checkAttributeKeys, prepareIdentification, upsertedUserSchema, type UpsertedUser } from '../../domain/users.js';
import { userAchievementView } from '../../domain/achievements.js';
import { pointsJson } from '../../domain/points.js';
import { accrueTime } from '../../engine/time-awards.js';
import { breakdownKeys, hasWindow, inWindow, metricBoards, pointsBoards, runOf, streakBoards } from '../../domain/leaderboards.js';
import { groupResolver, place, pointsPlacements, streakPlacements, type Placement } from '../../engine/placements.js';
import { isConnectionError } from '../../redis/outage.js';
import { markBreakdown } from '../../engine/departures.js';
import { WriteCoalescer } from '../../redis/coalesce.js';
import { ScriptCode } from '../../redis/scripts.js';
import { totalField } from '../../model/fields.js';
import { eventMatches, type MetricPlan } from '../../config/plans/achievements.js';
import { boostsArg } from '../../config/plans/points.js';
import type { Leaderboard, StreakSettings } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { eventEntry, type EventAward, type LoggedEvent } from '../../model/log.js';
import { certificateOf, gateable, gateFor, gatePasses, gatePassesNow, type Gate } from '../../engine/entry-gate.js';

interface EventBody {
  user: UpsertedUser;
  value: number;
  attributes?: Record<string, string> | null;
}

const validateEvent = compile<EventBody>({
  type: 'object',
  required: ['user', 'value'],
  properties: {
    user: upsertedUserSchema,
    value: { type: 'number' },
    attributes: { type: ['object', 'null'], additionalProperties: { type: 'string', maxLength: 1024 }, maxProperties: 100 },
  },
});

export const IDEMPOTENCY_KEY_MAX = 255;

/** A streak response for users without a streak (streaks arrive with their own issue). */
function noStreak(frequency: string): string {
  return `{"length":0,"frequency":"${frequency}","started":null,"periodStart":null,"periodEnd":null,"expires":null,"extended":false}`;
}

/** A processed event as the event scripts answer it (lua/recordEventPlan-3.lua, "Returns"). */
interface Processed {
  /** The metric's total, as Redis holds it. */
  total: string;
  created: boolean;
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
 * recordEventPlan's arguments (lua/recordEventPlan-3.lua), without the trailing empty ones when no
 * identification pairs follow: Redis builds ARGV element by element into a table that doubles as
 * it grows (leaving out three saved about 2,700 instructions an event).
 */
function planArgs(
  small: string, creation: string, entry: string, idempotency: string, planFull: string, boosts: string, pairs: string[],
): string[] {
  if (pairs.length > 0) return [small, creation, entry, idempotency, planFull, boosts, ...pairs];
  if (boosts !== '') return [small, creation, entry, idempotency, planFull, boosts];
  if (planFull !== '') return [small, creation, entry, idempotency, planFull];
  if (idempotency !== '') return [small, creation, entry, idempotency];
  return [small, creation, entry];
}

/**
 * A processed event as its log entry tells phase 2 of it (the points awarded, the streak as stored
 * when the event extended it): what src/engine/pending.ts places again.
 */
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

/**
 * Splits the scripts' answer: nine fields, separated by newlines, the last one JSON; a tenth (JSON)
 * when the identification moved the user's breakdown attributes.
 */
function processedOf(reply: string): Processed {
  const f = reply.split('\n', 8);
  let boardsAt = 8;
  for (const field of f) boardsAt += field.length;
  const movedAt = reply.indexOf('\n', boardsAt);
  return {
    total: f[0], created: f[1] === '1', streak: [f[2], f[3], f[4]], awards: f[5], completed: f[6], seq: f[7],
    boards: movedAt < 0 ? reply.slice(boardsAt) : reply.slice(boardsAt, movedAt), moved: movedAt < 0 ? '' : reply.slice(movedAt + 1),
  };
}

/** The achievements an event completed, as a JSON array. */
function completedJson(snapshot: Snapshot, completed: string, achievedAt: string): string {
  if (completed === '') return '[]';
  const list = [];
  for (const id of completed.split(',')) {
    const a = snapshot.achievements.get(id);
    if (a) list.push(userAchievementView(a, snapshot, achievedAt));
  }
  return JSON.stringify(list);
}

/** `new Date(ms).toISOString()` costs ~0.6 µs; many events share a millisecond under load. */
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

interface EventBoard {
  lb: Leaderboard;
  run: { start: string; end: string | null };
  /** Position of the run sum in the script's answer; -1: the board ranks the metric's total. */
  sum: number;
  /**
   * The entry gate (src/engine/placements.ts), for an event that raises the value on a board without
   * breakdown whose ranking this process knows full: the threshold learnt, and the ranking's falls
   * counter as read with phase 1.
   */
  gate: Gate | null;
}

interface EventBoards {
  /** The metric's boards running on the event's date. */
  metric: EventBoard[];
  /** recordEventPlan's <boards>. */
  arg: string;
  runCount: number;
  /** The breakdown attributes read, in the order of their values after the run sums. */
  attributeKeys: string[];
  /** The entry gates of perpetual points boards without breakdown, by board id. */
  pointsGates: Map<string, Gate>;
}

/** An event that awards nothing. */
const NO_AWARDS: readonly EventAward[] = [];

/** An event no board ranks. */
const NO_BOARDS: EventBoards = { metric: [], arg: '', runCount: 0, attributeKeys: [], pointsGates: new Map() };

/** Remembers time zones of users seen lately, so the first script call usually assumes right. */
class TzCache {
  private map = new Map<string, string>();

  get(tenant: string, userId: string): string {
    return this.map.get(tenant + '\u0000' + userId) ?? '';
  }

  set(tenant: string, userId: string, tz: string): void {
    const k = tenant + '\u0000' + userId;
    if (tz === '') {
      this.map.delete(k);
      return;
    }
    if (this.map.size >= 100_000) this.map.clear();
    this.map.set(k, tz);
  }
}

export function eventRoutes(deps: Deps): Route[] {
  const { redis, keys, store, clock, settings, metrics, stats } = deps;
  const tzCache = new TzCache();
  const coalescer = new WriteCoalescer(redis);
  const hold = () => coalescer.hold();
  const isoOf = isoCache();
  const windowMs = settings.idempotencyWindowMs;
  const noStreakJson = noStreak('daily');

  /**
   * The streak the script answers ({stored state, pauses, extended}) as of `period`, worked out
   * here rather than in Lua (the api is cheaper at it than the contended Redis), with the
   * response's currentStreak (extended only when this event did). Remembered per rule: events
   * answer the same few stored states over and over (every new user's first day is one), and
   * working one out costs about 1 µs (0.3 µs to find it again). The state is shared: frozen.
   */
  const streaks = new WeakMap<StreakSettings, Map<string, { state: Readonly<StreakState>; json: string }>>();

  /**
   * The awards the script answers (JSON, as the log carries them), parsed. Remembered: the usual
   * awards repeat across users and events (a trigger's points, the first totals and counts), and
   * JSON.parse takes about 0.8 µs for one award, a lookup a fifth of that. Shared: read only.
   */
  const awardsMemo = new Map<string, readonly EventAward[]>();
  function awardsOf(text: string): readonly EventAward[] {
    if (text === '') return NO_AWARDS;
    let awards = awardsMemo.get(text);
    if (awards === undefined) {
      awards = JSON.parse(text) as EventAward[];
      if (awardsMemo.size >= 10_000) awardsMemo.clear();
      awardsMemo.set(text, awards);
    }
    return awards;
  }
  function streakOf(rule: StreakSettings, reply: unknown, day: number, period: number): { state: Readonly<StreakState>; json: string } {
    const [packed, pauses, extended] = Array.isArray(reply) ? reply : ['', '', 0];
    const key = `${packed}\n${pauses}\n${extended}\n${day}\n${period}`;
    let known = streaks.get(rule);
    if (known === undefined) streaks.set(rule, (known = new Map()));
    let streak = known.get(key);
    if (streak === undefined) {
      const state = stateFromHash({ s: String(packed), 's:pz': String(pauses) }, rule, day, period);
      state.extended = String(extended) === '1';
      streak = { state: Object.freeze(state), json: streakJson(streakView(rule, state, period), state.extended) };
      if (known.size >= 10_000) known.clear();
      known.set(key, streak);
    }
    return streak;
  }

  async function record(req: Request): Promise<Reply> {
    const { tenant } = principalOf(req);
    const snapshot = store.current;
    const metric = snapshot.metricsByKey.get(req.params[0]);
    if (metric === undefined) throw fail('metric_not_found', req.params[0]);
    if (metric.status !== 'active') throw fail('unprocessable', `Metric "${metric.key}" is archived and accepts no events`);

    const idempotencyKey = req.idempotencyKey;
    if (idempotencyKey.length > IDEMPOTENCY_KEY_MAX) {
      throw fail('invalid_header', `Idempotency-Key must have at most ${IDEMPOTENCY_KEY_MAX} characters`);
    }
    if (idempotencyKey !== '' && NOT_PRINTABLE_ASCII.test(idempotencyKey)) {
      throw fail('invalid_header', 'Idempotency-Key must be printable ASCII');
    }
    const body = validateEvent(parseJson(req.body));
    const user = body.user;
    const ident = prepareIdentification(user, snapshot);
    // An attribute some board breaks down by is marked: the script says when it changes.
    const pairs = markBreakdown(ident.pairs, snapshot);
    let attributesJson = '';
    if (body.attributes != null) {
      checkAttributeKeys(body.attributes, snapshot.eventAttributes);
      attributesJson = JSON.stringify(body.attributes);
    }

    const u = keys.forUser(tenant, user.id);
    const userMetricKey = keys.userMetric(u, metric.id);
    const now = clock.now();
    const eventId = randomUUID();
    const value = String(body.value);
    const setsTz = ident.tz !== null;
    // Every metric has a plan (compilePlans); `hot` is '' for one without features.
    const plan = snapshot.plans.get(metric.id)!;
    const window = windowMs === 0 ? '' : `:${now}:${now + windowMs}`;
    const alone = plan.streakAlone;
    const flags = (setsTz ? '1' : '0') + ident.needsEmail + (Number.isSafeInteger(body.value) ? '1' : '0') +
      (alone !== null && body.value >= alone ? '1' : '0') + window;
    const idempotency = idempotencyKey === '' ? '' : `${eventId}i:${idempotencyKey}`;
    const nowIso = isoOf(now);
    const creation = nowIso + user.id;
    // The plan by id; in full once the script says it does not hold it.
    let planFull = '';
    const total = totalField(metric.id);
    const hot = plan.hot;
    const matches = eventMatches(plan, body.attributes);
    let tz = ident.tz ?? tzCache.get(tenant, user.id);
    const rule = snapshot.streak;
    let streakZone: string | null = null;

    for (let attempt = 0; attempt < 6; attempt++) {
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
        eventId, tenant, userId: user.id, metricId: metric.id, value, ts: now, day, idempotencyKey, attributesJson,
        processId: deps.processId,
      });
      coalescer.hold();
      // Metrics without features (no achievement, streak, points, or leaderboard that needs a run
      // sum or a group) take the script that knows nothing of them. The small arguments travel as
      // one string (ioredis spends about 120 ns an argument).
      const boards = boardsOf(tenant, metric.id, day, plan, tz, now, body.value > 0);
      const phase1 = hot === ''
        ? redis.recordEvent(u.user, userMetricKey, u.users, u.log, `${flags}|${total}|${value}|d:${day}|${tz}`, idempotency, creation, entry, ...pairs)
        : redis.recordEventPlan(u.user, userMetricKey, u.slot, ...planArgs(
          `${flags}|${value}|d:${day}|${tz}|${now}|${tenant}|${matches}|${periods}|${boards.arg}|${plan.arg.id}`, creation, entry,
          idempotency, planFull, plan.awardsPoints && snapshot.pointsBoosts.size > 0 ? boostsArg(snapshot, user.id, day) : '',
          pairs,
        ));
      // The entry gates' falls counters, read after phase 1 ran: on one Redis, last in the batch of
      // writes that carries it (Redis runs them in that order); on a Cluster the board may live on
      // another node, so they are read once phase 1 has answered, and only where the event may be
      // skipped.
      if (!redis.isCluster) readGates(boards);
      const answer = await phase1;
      if (typeof answer === 'string') {
        const p = processedOf(answer);
        metrics.events.processed++;
        // A new user or a completion changes the tenant's statistics.
        if (p.created || p.completed !== '') stats.invalidate(tenant);
        if (setsTz) tzCache.set(tenant, user.id, tz);
        const streak = rule === null ? null : streakOf(rule, p.streak, dayIndex, period);
        const state = streak === null ? null : streak.state;
        // The awards, as the event script logs them (JSON): parsed once for the response and phase 2.
        const awards = awardsOf(p.awards);
        const points = pointsJson(snapshot, awards, tenant, user.id, nowIso);
        const extended = rule !== null && state !== null && state.extended
          ? { length: state.length, expiry: expiresAt(rule, state, period, tz) ?? now } : null;
        const ranks = boards.metric.length > 0 || (awards.length > 0 && pointsBoards(snapshot).length > 0)
          || (extended !== null && streakBoards(snapshot).length > 0);
        // Phase 1 ran, so the event counts (201): a departure or placements that fail on Redis's
        // connection are made once it answers again (src/engine/pending.ts). A 503 would have a
        // client without an Idempotency-Key send it again, and count it twice.
        // The user first leaves the groups of the values the event's identification changed (its
        // own placements go to the new groups).
        const left = p.moved === '' || await deps.placements.leave(
          tenant, user.id, p.moved, null, tz, now, p.seq, ranks ? loggedEvent(tenant, user.id, metric.id, day, now, p, awards) : null,
        );
        let leaderboards = '{}';
        if (ranks && left) {
          try {
            leaderboards = skippedNow(boards, p, awards.length > 0, extended !== null) ?? await rankEvent(boards, p, awards, tenant, user.id, day, tz, now, extended);
          } catch (err) {
            if (!isConnectionError(err)) throw err;
            deps.placements.add(loggedEvent(tenant, user.id, metric.id, day, now, p, awards), p.seq, tenant, user.id);
          }
        }
        return respond(201, eventId, metric.id, p.total, idempotencyKey, false,
          completedJson(snapshot, p.completed, nowIso), streak === null ? noStreakJson : streak.json, points, leaderboards);
      }
      const r: unknown[] = answer;
      const code = r[0] as number;
      if (code === 2) {
        metrics.events.replayed++;
        const streak = rule === null ? noStreakJson : streakOf(rule, r[3], dayIndex, period).json;
        return respond(202, r[1] as string, metric.id, r[2] as string, idempotencyKey, true, '[]', streak, '{}', '{}');
      }
      if (code === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL) throw fail('subscribe_without_email');
      if (code === ScriptCode.TOTAL_OUT_OF_RANGE) {
        throw fail('unprocessable', `The total of metric "${metric.key}" would leave the range of a number (about ±1.8e308)`);
      }
      if (code === ScriptCode.PLAN_UNKNOWN) {
        planFull = plan.arg.full;
        continue;
      }
      if (code === ScriptCode.TIME_DUE) {
        // Time granted points since the user last acted: accrue them, then send the event again.
        await accrueTime(deps, tenant, user.id);
        continue;
      }
      if (code === ScriptCode.OUT_OF_POINTS) {
        throw fail('out_of_points', snapshot.pointsSystems.get(String(r[1]))?.key ?? String(r[1]));
      }
      if (code === ScriptCode.STREAK_ZONE) {
        // The user moved zone since the streak's last period: judge the period in both zones.
        streakZone = r[1] as string;
        continue;
      }
      // TZ_MISMATCH: the user's stored zone is another; recompute the periods and try again.
      tz = r[1] as string;
      tzCache.set(tenant, user.id, tz);
    }
    throw fail('unavailable', 'the user time zone or points kept changing during the request; retry');
  }

  /**
   * What the event script must do for the leaderboards (recordEventPlan <boards>): add the value to
   * the run sums of the metric's repeating boards, and read the breakdown attributes of every board
   * the event may rank on (the metric's, and the points and streak boards). A perpetual metric board
   * ranks the metric's total.
   */
  function boardsOf(
    tenant: string, metricId: string, date: string, plan: MetricPlan, tz: string, now: number, raises: boolean,
  ): EventBoards {
    const snapshot = store.current;
    const mine = metricBoards(snapshot, metricId);
    // Points and streak boards concern the event only when it may award points or extend the streak.
    const points = plan.awardsPoints ? pointsBoards(snapshot) : [];
    const streaks = plan.extendsStreak ? streakBoards(snapshot) : [];
    if (mine.length === 0 && points.length === 0 && streaks.length === 0) return NO_BOARDS;
    const metric: EventBoard[] = [];
    const runFields: string[] = [];
    const attributeKeys = new Set<string>();
    for (const lb of mine) {
      const run = runOf(lb, date);
      if (run === null) continue;
      // A board with a daily window counts only the events inside it, in a sum of its own.
      const windowed = hasWindow(lb);
      if (windowed && !inWindow(lb, localMinute(tz, now))) continue;
      const board: EventBoard = { lb, run, sum: -1, gate: null };
      if (lb.runUnit !== null || windowed) {
        board.sum = runFields.length;
        runFields.push(`r:${lb.id}:${run.start}`);
      }
      const breakdown = breakdownKeys(lb, snapshot);
      for (const key of breakdown) attributeKeys.add(key);
      if (raises && breakdown.length === 0) board.gate = gateOf(snapshot, tenant, lb, run.start);
      metric.push(board);
    }
    const pointsGates = new Map<string, Gate>();
    for (const lb of points) {
      const breakdown = breakdownKeys(lb, snapshot);
      for (const key of breakdown) attributeKeys.add(key);
      // Whether the event raises the total is known only once phase 1 answered its awards.
      const run = breakdown.length === 0 ? runOf(lb, date) : null;
      const gate = run === null ? null : gateOf(snapshot, tenant, lb, run.start);
      if (gate !== null) pointsGates.set(lb.id, gate);
    }
    for (const lb of streaks) {
      for (const key of breakdownKeys(lb, snapshot)) attributeKeys.add(key);
    }
    const keysList = [...attributeKeys];
    const arg = runFields.length === 0 && keysList.length === 0 ? '' : `${runFields.join(',')}#${keysList.map((k) => 'a:' + k).join(',')}`;
    return { metric, arg, runCount: runFields.length, attributeKeys: keysList, pointsGates };
  }

  /** The entry gate of a board run without breakdown, when this process knows its ranking full. */
  function gateOf(snapshot: Snapshot, tenant: string, lb: Leaderboard, run: string): Gate | null {
    if (!gateable(lb, [])) return null;
    const k = keys.leaderboard(tenant, lb.id, run, '');
    const certificate = certificateOf(snapshot, k.ranking);
    return certificate === undefined ? null : gateFor(certificate, k.falls);
  }

  /** Sends the falls counters' reads of an event's gates (joining the turn's coalesced writes). */
  function readGates(boards: EventBoards): void {
    for (const b of boards.metric) if (b.gate !== null) b.gate.falls = readFalls(b.gate);
    for (const gate of boards.pointsGates.values()) gate.falls = readFalls(gate);
  }

  /**
   * A falls counter (undefined when the read failed: the gate then lets the placement through),
   * read once for every event that asked while the current batch of writes was being gathered:
   * the GET leaves last in that batch, behind the phase 1 of each of those events (on one
   * connection Redis runs them in order; on a Cluster their phase 1 has answered before they ask).
   */
  let fallsWanted = new Map<string, ((falls: string | null | undefined) => void)[]>();
  const readWantedFalls = (): void => {
    const wanted = fallsWanted;
    fallsWanted = new Map();
    for (const [key, waiters] of wanted) {
      redis.get(key).then(
        (falls) => { for (const w of waiters) w(falls); },
        () => { for (const w of waiters) w(undefined); },
      );
    }
  };
  function readFalls(gate: Gate): Promise<string | null | undefined> {
    return new Promise((resolve) => {
      let waiters = fallsWanted.get(gate.key);
      if (waiters === undefined) {
        if (fallsWanted.size === 0) coalescer.beforeBatchLeaves(readWantedFalls);
        waiters = [];
        fallsWanted.set(gate.key, waiters);
      }
      waiters.push((falls) => {
        gate.read = true;
        gate.value = falls;
        resolve(falls);
      });
    });
  }

  /**
   * '{}' when every board the event concerns skips its placement, known without waiting (the
   * usual event on a full board: its counter's read answered with phase 1); else null.
   */
  function skippedNow(boards: EventBoards, processed: Processed, awardsPoints: boolean, extended: boolean): string | null {
    if ((awardsPoints && pointsBoards(store.current).length > 0) || (extended && streakBoards(store.current).length > 0)) return null;
    for (const { sum, gate } of boards.metric) {
      if (gate === null || sum >= 0 || gatePassesNow(gate, Number(processed.total)) !== true) return null;
    }
    metrics.leaderboards.skipped += boards.metric.length;
    return '{}';
  }

  /**
   * Phase 2: the user's standing on the metric's boards (total or run sum), on the points boards of
   * the systems the event awarded, and on the streak boards when the streak extended. Answers the
   * response's `leaderboards` JSON.
   */
  async function rankEvent(
    boards: EventBoards, processed: Processed, awards: readonly EventAward[], tenant: string, userId: string, date: string, tz: string,
    now: number, extended: { length: number; expiry: number } | null,
  ): Promise<string> {
    const snapshot = store.current;
    const values = processed.boards === '' ? [] : JSON.parse(processed.boards) as string[];
    const groupOf = groupResolver(snapshot, new Map(boards.attributeKeys.map((k, i) => [k, values[boards.runCount + i] ?? ''])));
    const placements: Placement[] = [];
    for (const { lb, run, sum, gate } of boards.metric) {
      const group = groupOf(lb);
      if (group === null) continue;
      const value = sum >= 0 ? values[sum] : processed.total;
      if (gate !== null && await gatePasses(gate, Number(value), readFalls)) {
        metrics.leaderboards.skipped++;
        continue;
      }
      placements.push({ lb, run, group, value });
    }
    if (awards.length > 0) {
      const placed = awards.map(([system, , awarded, total, n]) => ({ system, awarded, total, n, day: date, ms: now }));
      for (const p of pointsPlacements(deps, placed, groupOf, tz)) {
        // A perpetual board ranks the system's total after the event's last award: skipped when
        // every award of the system raised it.
        const gate = boards.pointsGates.get(p.lb.id);
        if (gate !== undefined && placed.every((a) => a.system !== p.lb.pointsSystemId || a.awarded > 0)
            && await gatePasses(gate, Number(p.value), readFalls)) {
          metrics.leaderboards.skipped++;
          continue;
        }
        placements.push(p);
      }
    }
    if (extended !== null) placements.push(...streakPlacements(deps, extended.length, extended.expiry, date, groupOf));
    if (placements.length === 0) return '{}';
    return `{${(await place(deps, tenant, userId, placements, now, hold, processed.seq)).join(',')}}`;
  }

  function respond(
    status: number, eventId: string, metricId: string, total: string | number, idempotencyKey: string, replayed: boolean,
    achievements: string, currentStreak: string, points: string, leaderboards: string,
  ): Reply {
    let body = `{"eventId":"${eventId}","metricId":"${metricId}","total":${Number(total)},"achievements":${achievements},` +
      `"currentStreak":${currentStreak},"points":${points},"leaderboards":${leaderboards}`;
    if (idempotencyKey !== '') {
      body += `,"idempotencyKey":${JSON.stringify(idempotencyKey)},"idempotentReplayed":${replayed}`;
    }
    return { status, body: body + '}' };
  }

  return [{ method: 'post', path: '/metrics/:key/event', family: 'app', handler: record }];
}
