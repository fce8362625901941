/**
 * Admin API for leaderboards (trophy-admin 1.21.1): `/admin/v1/leaderboards`, in the batch shapes
 * of the other resources.
 *
 * The stored `status` is what the admin set; the view shows the status users see, which the clock
 * moves (src/domain/leaderboards/runs.ts leaderboardStatus). The state table (docs/api.md, "Leaderboards"):
 * - a board may always be created or set `inactive`, except once finished;
 * - `active` is refused while the start date is in the future (set `scheduled` instead);
 * - `scheduled` is refused unless the start date is in the future;
 * - `finished` may always be set (the admin finishing it), but a board users see as finished (set
 *   so, or past its end) can never become visible again.
 * "Today" is the service clock's UTC date. The ranking (key, rankBy, metric, points system) and
 * the repeat unit can change only while the stored status is `inactive`. Once users see the board
 * active or finished, what its rankings are kept by (start, runInterval, breakdownAttributes) is
 * fixed, and maxParticipants may only rise (to null, uncapped, included).
 *
 * A repeating board may carry a `league` (src/domain/leaderboards/league.ts): once users see the
 * board it is neither added nor removed, and its tiers' keys keep their order.
 *
 * `maxParticipants: null`, or `uncapped: true` without it, makes a board rank every participant
 * (docs/api.md, "Boards without a cap"); omitted, a new board ranks up to 1000. Such a board may
 * spread each run over `shards` rankings (docs/api.md, "Shards"), fixed once it has started.
 */
import type { Deps } from '../../engine/deps.js';
import { capFalls } from '../../domain/leaderboards/cap.js';
import { checkShards, MAX_SHARDS, shardSlotsOf, shardsOf } from '../../domain/leaderboards/shards.js';
import { checkLeague, checkLeagueChange, LEAGUE_SCHEMA, leagueOf, type LeagueInput } from '../../domain/leaderboards/league.js';
import { lastDayOf, leaderboardStatus, mondayFrom } from '../../domain/leaderboards/runs.js';
import { checkDateSpan } from '../../domain/time.js';
import { idOf, unknownReference } from '../../domain/references.js';
import type { Route } from '../../http/server.js';
import { resourceRoutes } from './resource.js';
import type { Leaderboard, LeaderboardStatus } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { LeaderboardAdminView } from '../../model/views.js';

// ---------------------------------------------------------------------------------------------
// Schemas

const KEY = { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 100 };
const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const TIME = { type: ['string', 'null'], pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$' };
const STATUSES: LeaderboardStatus[] = ['inactive', 'active', 'scheduled', 'finished'];
const RANK_BY = ['metric', 'points', 'streak'];

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  key: KEY,
  description: { type: ['string', 'null'], maxLength: 2000 },
  status: { enum: STATUSES },
  rankBy: { enum: RANK_BY },
  metricId: { type: 'string' },
  metricKey: { type: 'string' },
  pointsSystemId: { type: 'string' },
  pointsSystemKey: { type: 'string' },
  maxParticipants: { type: ['integer', 'null'], minimum: 1, maximum: 1000 },
  uncapped: { type: 'boolean' },
  shards: { type: 'integer', minimum: 1, maximum: MAX_SHARDS },
  start: DATE,
  end: { ...DATE, type: ['string', 'null'] },
  startTime: TIME,
  endTime: TIME,
  breakdownAttributes: { type: 'array', maxItems: 100, items: { type: 'string' } },
  runUnit: { enum: ['day', 'month', 'year', null] },
  runInterval: { type: ['integer', 'null'], minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  league: LEAGUE_SCHEMA,
};

const SCHEMAS = {
  create: { type: 'object', required: ['name', 'key', 'rankBy'], properties: fields },
  update: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, ...fields } },
};

// ---------------------------------------------------------------------------------------------
// Inputs

interface LeaderboardInput {
  name: string;
  key: string;
  rankBy: Leaderboard['rankBy'];
  description?: string | null;
  status?: LeaderboardStatus;
  metricId?: string;
  /** laurel's convenience: the metric by key instead of id. */
  metricKey?: string;
  pointsSystemId?: string;
  /** laurel's convenience: the points system by key instead of id. */
  pointsSystemKey?: string;
  maxParticipants?: number | null;
  /** laurel's: true ranks every participant (maxParticipants null); false, a cap (1000 unless given). */
  uncapped?: boolean;
  /** laurel's: the rankings each run is spread over, 1 to 64 (uncapped boards only). */
  shards?: number;
  start?: string;
  end?: string | null;
  startTime?: string | null;
  endTime?: string | null;
  breakdownAttributes?: string[];
  runUnit?: Leaderboard['runUnit'];
  runInterval?: number | null;
  /** laurel's: tiers and cohorts (docs/api.md, "Leagues"); null removes it. */
  league?: LeagueInput | null;
}

type LeaderboardChanges = Partial<LeaderboardInput> & { id: string };

// ---------------------------------------------------------------------------------------------
// View

/**
 * AdminLeaderboard: the fields a board does not have (a description, an end, a daily window, runs)
 * are left out, as the admin spec has them optional and never null.
 */
function leaderboardAdminView(lb: Leaderboard, nowMs: number): LeaderboardAdminView {
  const view: LeaderboardAdminView = {
    id: lb.id, name: lb.name, key: lb.key,
    ...(lb.description !== null && { description: lb.description }),
    status: leaderboardStatus(lb, nowMs), rankBy: lb.rankBy,
    ...(lb.rankBy === 'metric' && { metricId: lb.metricId }),
    ...(lb.rankBy === 'points' && { pointsSystemId: lb.pointsSystemId }),
    maxParticipants: lb.maxParticipants, start: lb.start, breakdownAttributes: lb.breakdownAttributes,
  };
  if (lb.end !== null) view.end = lb.end;
  if (lb.startTime !== null) view.startTime = lb.startTime;
  if (lb.endTime !== null) view.endTime = lb.endTime;
  if (lb.runUnit !== null) view.runUnit = lb.runUnit;
  if (lb.runInterval !== null) view.runInterval = lb.runInterval;
  if (lb.league) view.league = lb.league;
  if (shardsOf(lb) > 1) view.shards = shardsOf(lb);
  return view;
}

// ---------------------------------------------------------------------------------------------
// Checks the schemas cannot make

/** The UTC date of an instant, YYYY-MM-DD. */
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The cap an input asks for: `maxParticipants` (null: uncapped), or `uncapped`; `current` when it
 * names neither (a new board's is 1000). A message when the two disagree.
 */
function capAsked(item: Pick<LeaderboardInput, 'maxParticipants' | 'uncapped'>, current: number | null): number | null | string {
  const { maxParticipants: max, uncapped } = item;
  if (uncapped === true && typeof max === 'number') return `uncapped: true takes no maxParticipants (got ${max}); leave it out or set it null`;
  if (uncapped === false && max === null) return 'uncapped: false needs a maxParticipants number (1 to 1000), or none for 1000';
  if (max !== undefined) return max;
  if (uncapped === true) return null;
  if (uncapped === false) return current ?? 1000;
  return current;
}

/** What a leaderboard must be whatever its history; a message, or null when it is sound. */
function check(lb: Leaderboard, snapshot: Snapshot): string | null {
  switch (lb.rankBy) {
    case 'metric':
      if (lb.metricId === null) return 'metricId (or metricKey) is required for a metric leaderboard';
      if (!snapshot.metrics.has(lb.metricId)) return unknownReference('metricId', 'a metric', lb.metricId);
      break;
    case 'points':
      if (lb.pointsSystemId === null) return 'pointsSystemId (or pointsSystemKey) is required for a points leaderboard';
      if (!snapshot.pointsSystems.has(lb.pointsSystemId)) return unknownReference('pointsSystemId', 'a points system', lb.pointsSystemId);
      break;
    case 'streak':
      break;
  }
  if (lb.rankBy !== 'metric' && lb.metricId !== null) return 'metricId applies to metric leaderboards only';
  if (lb.rankBy !== 'points' && lb.pointsSystemId !== null) return 'pointsSystemId applies to points leaderboards only';
  if (lb.rankBy === 'streak' && lb.runUnit !== null) return 'streak leaderboards can only be perpetual: runUnit must be null';
  if (lb.runUnit !== null && lb.runInterval === null) return 'runInterval is required with runUnit';
  if (lb.runUnit === null && lb.runInterval !== null) return 'runInterval needs a runUnit';
  const span = checkDateSpan(lb.start, lb.end);
  if (span !== null) return span;
  const seen = new Set<string>();
  for (const id of lb.breakdownAttributes) {
    if (snapshot.attributes.get(id)?.type !== 'user') return `breakdownAttributes: "${id}" is not the id or key of a user attribute`;
    if (seen.has(id)) return `breakdownAttributes: "${id}" is listed twice`;
    seen.add(id);
  }
  return checkShards(lb) ?? checkLeague(lb);
}

/** Breakdown attributes named by id or by key, as ids (a name that is neither stays, for check() to refuse). */
function attributeIds(refs: string[], snapshot: Snapshot): string[] {
  return refs.map((ref) => {
    if (snapshot.attributes.has(ref)) return ref;
    for (const a of snapshot.attributes.values()) if (a.type === 'user' && a.key === ref) return a.id;
    return ref;
  });
}

/**
 * The state table: whether `next` may follow `previous` (null on creation) at `nowMs`.
 * `statusSet`: the request names a status (a creation always does, `inactive` by default).
 */
function checkTransition(previous: Leaderboard | null, next: Leaderboard, statusSet: boolean, nowMs: number): string | null {
  const today = utcDate(nowMs);
  const future = next.start > today;
  const startMoved = previous !== null && next.start !== previous.start;
  if (next.status === 'active' && future && (statusSet || startMoved)) {
    return 'a leaderboard with a future start date cannot be made active directly; set status scheduled';
  }
  if (next.status === 'scheduled' && !future && statusSet) {
    return `status scheduled needs a start date in the future (start is ${next.start}, today is ${today}); set status active`;
  }
  if (previous !== null && leaderboardStatus(previous, nowMs) === 'finished') {
    const shown = leaderboardStatus(next, nowMs);
    if (shown !== 'finished') return `a finished leaderboard cannot become ${shown} again`;
    // Its runs are final: an earlier end would hide the last ones (a 404 for run=, winners and all).
    if (next.end !== previous.end) return `end cannot change once the leaderboard has finished (its runs up to ${lastDayOf(previous)} are final)`;
  }
  return null;
}

/**
 * Once users can be ranked on a board (users see it active or finished), its rankings are kept by
 * run (start and interval) and by group (the breakdown attributes): a change there would hide
 * them. The cap may rise, not fall: a full ranking would hold more than its maximum.
 */
function checkRanked(previous: Leaderboard, next: Leaderboard, nowMs: number): string | null {
  const status = leaderboardStatus(previous, nowMs);
  const shown = status === 'active' || status === 'finished' ? `its status is ${status}` : previous.shown ? 'it has been active' : null;
  if (shown === null) return null;
  const why = `${shown}, and its rankings are kept`;
  if (next.start !== previous.start) return `start can only change before the leaderboard starts (${why} by run)`;
  if (next.runInterval !== previous.runInterval) return `runInterval can only change before the leaderboard starts (${why} by run)`;
  if (next.breakdownAttributes.join(',') !== previous.breakdownAttributes.join(',')) {
    return `breakdownAttributes can only change before the leaderboard starts (${why} by group)`;
  }
  if (shardsOf(next) !== shardsOf(previous)) {
    return `shards can only change before the leaderboard starts (${why} in ${shardsOf(previous)} shard${shardsOf(previous) === 1 ? '' : 's'}: a user's place is in one of them)`;
  }
  if (capFalls(previous.maxParticipants, next.maxParticipants)) {
    const ranks = previous.maxParticipants === null ? 'every participant, uncapped' : `up to ${previous.maxParticipants}`;
    return `maxParticipants can only rise once the leaderboard has started (${shown}; it ranks ${ranks})`;
  }
  return checkLeagueChange(previous, next, shown);
}

// ---------------------------------------------------------------------------------------------
// Routes

export function adminLeaderboardRoutes(deps: Deps): Route[] {
  return resourceRoutes<'leaderboards', LeaderboardInput, LeaderboardChanges>(deps, {
    kind: 'leaderboards',
    path: '/leaderboards',
    label: 'Leaderboard',
    createSchema: SCHEMAS.create,
    updateSchema: SCHEMAS.update,
    build: (item, { id, now, snapshot }) => {
      const nowMs = Date.parse(now);
      const metric = idOf(item.metricId, item.metricKey, snapshot.metricsByKey, 'metricKey', 'a metric');
      if (typeof metric === 'string') return metric;
      const system = idOf(item.pointsSystemId, item.pointsSystemKey, snapshot.pointsSystemsByKey, 'pointsSystemKey', 'a points system');
      if (typeof system === 'string') return system;
      const cap = capAsked(item, 1000);
      if (typeof cap === 'string') return cap;
      const runUnit = item.runUnit ?? null;
      const runInterval = item.runInterval ?? null;
      const today = utcDate(nowMs);
      // A weekly board starts on the next first day of the week (docs/api.md, "Leaderboards").
      const start = item.start ?? (runUnit === 'day' && runInterval === 7 ? mondayFrom(today) : today);
      const lb: Leaderboard = {
        id, key: item.key, name: item.name, description: item.description ?? null,
        status: item.status ?? 'inactive', rankBy: item.rankBy,
        metricId: metric.id ?? null, pointsSystemId: system.id ?? null,
        maxParticipants: cap,
        ...(item.shards !== undefined && item.shards > 1 && { shards: item.shards, ...shardSlotsOf(null, { shards: item.shards }) }),
        start, end: item.end ?? null, startTime: item.startTime ?? null, endTime: item.endTime ?? null,
        breakdownAttributes: attributeIds(item.breakdownAttributes ?? [], snapshot), runUnit, runInterval,
        ...(item.league && { league: leagueOf(item.league) }),
        finishedAt: item.status === 'finished' ? now : null,
        created: now, updated: now,
      };
      // Created finished: a board of the past (trophy-admin 1.21.1: "only when creating a leaderboard
      // with an end date in the past").
      if (lb.status === 'finished' && (lb.end === null || lb.end >= today)) {
        return `status finished on creation needs an end date in the past (today is ${today}); create it inactive or active instead`;
      }
      return check(lb, snapshot) ?? checkTransition(null, lb, true, nowMs) ?? lb;
    },
    apply: (lb, c, { now, snapshot }) => {
      const nowMs = Date.parse(now);
      const metric = idOf(c.metricId, c.metricKey, snapshot.metricsByKey, 'metricKey', 'a metric');
      if (typeof metric === 'string') return metric;
      const system = idOf(c.pointsSystemId, c.pointsSystemKey, snapshot.pointsSystemsByKey, 'pointsSystemKey', 'a points system');
      if (typeof system === 'string') return system;
      const cap = capAsked(c, lb.maxParticipants);
      if (typeof cap === 'string') return cap;
      const rankBy = c.rankBy ?? lb.rankBy;
      const rankByChanged = rankBy !== lb.rankBy;
      // Clearing the repeat unit clears its interval (they go together).
      const runUnit = c.runUnit === undefined ? lb.runUnit : c.runUnit;
      const runInterval = c.runInterval !== undefined ? c.runInterval : c.runUnit === null ? null : lb.runInterval;
      const shards = c.shards === undefined ? lb.shards : c.shards > 1 ? c.shards : undefined;
      const next: Leaderboard = {
        ...lb,
        key: c.key ?? lb.key,
        name: c.name ?? lb.name,
        description: c.description === undefined ? lb.description : c.description,
        status: c.status ?? lb.status,
        rankBy,
        // A new ranking drops the fields of the old one.
        metricId: metric.id ?? (rankByChanged ? null : lb.metricId),
        pointsSystemId: system.id ?? (rankByChanged ? null : lb.pointsSystemId),
        maxParticipants: cap,
        start: c.start ?? lb.start,
        end: c.end === undefined ? lb.end : c.end,
        startTime: c.startTime === undefined ? lb.startTime : c.startTime,
        endTime: c.endTime === undefined ? lb.endTime : c.endTime,
        breakdownAttributes: c.breakdownAttributes === undefined ? lb.breakdownAttributes : attributeIds(c.breakdownAttributes, snapshot),
        runUnit, runInterval,
        league: c.league === undefined ? lb.league : leagueOf(c.league),
        shards,
        shardSlots: shardSlotsOf(lb, { shards }).shardSlots,
        finishedAt: c.status === 'finished' && lb.status !== 'finished' ? now : lb.finishedAt ?? null,
        updated: now,
      };
      const status = leaderboardStatus(lb, nowMs);
      if (lb.shown || status === 'active' || status === 'finished') next.shown = true;
      if (lb.status !== 'inactive') {
        const fixed: (keyof Leaderboard)[] = ['key', 'rankBy', 'metricId', 'pointsSystemId', 'runUnit'];
        const changed = fixed.find((f) => next[f] !== lb[f]);
        if (changed !== undefined) return `${changed} can only change while the leaderboard is inactive (its status is ${lb.status})`;
      } else if (lb.shown) {
        // Made inactive again: its rankings are still kept by what they rank (the key may change).
        const fixed: (keyof Leaderboard)[] = ['rankBy', 'metricId', 'pointsSystemId', 'runUnit'];
        const changed = fixed.find((f) => next[f] !== lb[f]);
        if (changed !== undefined) return `${changed} cannot change: the leaderboard has been active, and its rankings are kept`;
      }
      return check(next, snapshot) ?? checkTransition(lb, next, c.status !== undefined, nowMs) ?? checkRanked(lb, next, nowMs) ?? next;
    },
    view: (lb) => leaderboardAdminView(lb, deps.clock.now()),
  });
}
