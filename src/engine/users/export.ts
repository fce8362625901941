/**
 * A user's export (docs/api.md, "Exporting a user"): what laurel holds about them, read through
 * each feature's reads; the route (src/routes/admin/user-export.ts) shapes it and streams it.
 * - `userRecord`: what Redis holds (the user hash with profile, attributes, preferences, totals,
 *   completions, streak, points totals; each metric's days; the streak history; each points
 *   system's stored awards and days; the places on the tenant's boards and the finished runs won);
 * - `userLog`: every entry of the log about them, a chunk at a time: the Postgres archive up to its
 *   cursor (src/postgres/user-archive.ts), then the entries only the partition's log in Redis holds
 *   yet. Redis is read first and the cursor after: an entry past the cursor was in Redis then (the
 *   drain trims only what the archive holds), so each entry shows once, none missing;
 * - `userDeliveries`: the notifications and webhook deliveries about them (Postgres);
 * - `userAudit`: the audit log's entries about them.
 * What it finds is what the user's erasure removes (src/engine/erasure/erase.ts): the same finders.
 */
import type { UserHash } from '../../domain/users.js';
import { DAY_PREFIX, POINTS_TOTAL_PREFIX, totalField } from '../../model/fields.js';
import { compareStreamIds, entryBody } from '../../model/log.js';
import { heldLeagues, type HeldPlace } from '../../redis/leagues.js';
import { userDeliveries as notificationsOf, type Delivery } from '../../postgres/notifications/deliveries.js';
import { archivedLinesOf, archivedUpTo, userNeedle, usersLine, type UserLine } from '../../postgres/user-archive.js';

export type { UserLine };
import { userDeliveries as webhooksOf } from '../../postgres/webhooks/history.js';
import type { WebhookDelivery } from '../../postgres/webhooks/deliveries.js';
import type { Context } from '../context.js';
import { userKeysOf, type HeldUserKey } from '../keys/user-keys.js';
import { auditRowsNaming, type AuditRow } from '../../postgres/audit.js';
import { withoutNeedles, withoutUser } from '../../domain/audit.js';
import { containedNeedlesOf, exactNeedlesOf, profileOf } from '../../domain/erasure.js';
import { userPlaces, type BoardPlace, type RunWon } from '../leaderboards/user-places.js';
import { userPoints, userPointsDays } from '../points/read.js';
import { userWithHistory } from '../streaks/read.js';
import { userMetricHash } from './read.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'stats' | 'settings' | 'postgres'>;

/** Awards a user's points hash keeps of a system (lua/includes/points.lua): the export reads them all. */
const KEPT_AWARDS = 100;
/** Entries of the partition's log read per XRANGE. */
const LOG_PAGE = 1000;

export interface UserRecord {
  user: UserHash;
  /** The keys scoped to the user (src/engine/keys/user-keys.ts). */
  keys: HeldUserKey[];
  /** Per metric the user has a total of: its days (`YYYY-MM-DD` -> change that day). */
  metricDays: Map<string, Record<string, number>>;
  /** The streak's history as stored (period -> length, `f`/`p` marks: docs/data-model.md). */
  streakHistory: Record<string, string>;
  points: { systemId: string; total: number; awards: [number, string][]; days: Record<string, number> }[];
  places: BoardPlace[];
  won: RunWon[];
  /** The league places the user holds. */
  leagues: { boardId: string; place: HeldPlace }[];
}

/** Day fields (`d:<day>`) of a hash as day -> number. */
function daysOf(h: Record<string, string> | null): Record<string, number> {
  const days: Record<string, number> = {};
  if (h === null) return days;
  for (const field of Object.keys(h).sort()) if (field.startsWith(DAY_PREFIX)) days[field.slice(DAY_PREFIX.length)] = Number(h[field]);
  return days;
}

/** What Redis holds of the user; null when there is no such user. */
export async function userRecord(deps: Deps, tenant: string, userId: string): Promise<UserRecord | null> {
  const read = await userWithHistory(deps, tenant, userId);
  if (read === null) return null;
  const { user, history } = read;
  const metricDays = new Map<string, Record<string, number>>();
  const totalPrefix = totalField('');
  for (const field of Object.keys(user)) {
    if (!field.startsWith(totalPrefix)) continue;
    const metricId = field.slice(totalPrefix.length);
    metricDays.set(metricId, daysOf(await userMetricHash(deps, tenant, userId, metricId)));
  }
  const points: UserRecord['points'] = [];
  for (const field of Object.keys(user)) {
    if (!field.startsWith(POINTS_TOTAL_PREFIX)) continue;
    const systemId = field.slice(POINTS_TOTAL_PREFIX.length);
    const stored = await userPoints(deps, tenant, userId, systemId, KEPT_AWARDS);
    const days = await userPointsDays(deps, tenant, userId, systemId);
    if (stored !== null) points.push({ systemId, total: stored.total, awards: stored.awards, days: daysOf(days) });
  }
  const { places, won } = await userPlaces(deps, tenant, user);
  const keys: HeldUserKey[] = [];
  for await (const k of userKeysOf(deps, tenant, userId)) keys.push(k);
  return { user, keys, metricDays, streakHistory: history, points, places, won, leagues: heldLeagues(user) };
}

/**
 * The audit log's entries about the user (those their erasure rewrites: src/postgres/audit.ts
 * eraseFromAudit): an entry whose ids name them, or whose body holds an object of theirs, their
 * email or device tokens, or a string that is their name.
 */
export async function userAudit(deps: Deps, tenant: string, user: UserHash): Promise<AuditRow[]> {
  const profile = profileOf(user.email ?? null, user.name ?? null, user.dt ?? null);
  const who = { tenant, userId: user.id, erasureId: '', profile };
  const rows = await auditRowsNaming(await deps.postgres(), deps.settings.prefix, who);
  return rows.filter((row) => row.ids.includes(user.id) || withoutUser(row.body, user.id, '') !== null
    || withoutNeedles(row.body, exactNeedlesOf(who), containedNeedlesOf(who), '') !== null);
}

/**
 * Every entry of the log about the user, oldest first, a chunk at a time (a user with a million
 * archived events never sits in memory: src/postgres/user-archive.ts).
 */
export async function* userLog(deps: Deps, tenant: string, userId: string): AsyncGenerator<UserLine[]> {
  const { redis, keys } = deps;
  const partition = keys.partitionOf(tenant, userId);
  const log = keys.partitionLog(partition);
  const needle = userNeedle(userId);
  // The user's entries Redis holds: first (see above), and few (what the archive does not hold yet, and 30 s more).
  const inRedis: UserLine[] = [];
  let from = '-';
  for (;;) {
    const entries = (await redis.xrange(log, from, '+', 'COUNT', LOG_PAGE)) as [string, string[]][];
    for (const [id, fields] of entries) {
      const mine = usersLine(id, fields[0] ?? 'unknown', entryBody(fields), needle, tenant, userId);
      if (mine !== null) inRedis.push(mine);
    }
    if (entries.length < LOG_PAGE) break;
    from = `(${entries[entries.length - 1][0]}`;
  }
  const pool = await deps.postgres();
  const upTo = await archivedUpTo(pool, deps.settings.prefix, partition);
  yield* archivedLinesOf(pool, deps.settings.prefix, partition, tenant, userId, upTo);
  const newer = inRedis.filter((line) => compareStreamIds(line.id, upTo) > 0);
  if (newer.length > 0) yield newer;
}

/** The notifications and webhook deliveries about the user. */
export async function userDeliveries(deps: Deps, tenant: string, userId: string): Promise<{ notifications: Delivery[]; webhooks: WebhookDelivery[] }> {
  const pool = await deps.postgres();
  const prefix = deps.settings.prefix;
  return { notifications: await notificationsOf(pool, prefix, tenant, userId), webhooks: await webhooksOf(pool, prefix, tenant, userId) };
}
