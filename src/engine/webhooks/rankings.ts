/**
 * `leaderboard.changed` and `leaderboard.rank_changed` (docs/webhooks.md): at most once per 15
 * minutes, from the clock rather than the log. At the end of each 15-minute window of the service's
 * clock, a pass of the webhooks worker reads the ranking of every active board's current run (per
 * tenant and breakdown group, up to its participants, at most MAX_READ) and compares it with what
 * the window before saw:
 * - the top 10 changed: one `leaderboard.changed` with them (the last seen kept in the board's
 *   state hash, `c:<run>:<group>`);
 * - a user's rank or value changed (overtaken users too): one `leaderboard.rank_changed` each, with
 *   the previous rank and value (null for a newcomer; kept in the run's `:w` hash);
 * - below an uncapped run's first REPORTED_TOP, the users the log drain noted (their own entries
 *   moved them: src/engine/webhooks/rank-notes.ts), each with their exact rank before and after.
 * The event path pays nothing for them. Event ids name the window and the user: a pass made again,
 * or by several worker processes, records each once. A tenant with a history import under way is
 * passed over (src/redis/imports.ts): its runs are taken as seen once the import is applied.
 */
import type pg from 'pg';
import { isControl } from '../../domain/notifications/rules.js';
import { boardView, runOf } from '../../domain/leaderboards/runs.js';
import { capOf } from '../../domain/leaderboards/cap.js';
import { localDay } from '../../domain/time.js';
import { userView } from '../../domain/users.js';
import type { RankedUser } from '../../domain/webhooks/clock-events.js';
import { eventId, type WebhookEvent } from '../../domain/webhooks/events.js';
import type { Leaderboard, WebhookType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { notedImports } from '../../redis/imports.js';
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { seenPlace, seenText } from '../../redis/rankings.js';
import { placesOfRunUsers, readRunPlaces } from '../../redis/sharded-rankings.js';
import { runShards } from '../../redis/board-shards.js';
import { reportedTopField } from '../../redis/board-state.js';
import { recordEvents } from './record.js';
import { forNotedUsers, notesUsers, REPORTED_TOP } from './rank-notes.js';

/** The window: `leaderboard.changed` and `leaderboard.rank_changed` at most once in each. */
export const RANKINGS_WINDOW_MS = 15 * 60_000;
const TOP = 10;

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>;

/** Whether an active endpoint wants either event. */
export function rankingsWanted(types: ReadonlySet<WebhookType>): boolean {
  return types.has('leaderboard.changed') || types.has('leaderboard.rank_changed');
}

/** The start of the window `now` is in. */
export const windowOf = (now: number): number => now - (now % RANKINGS_WINDOW_MS);

/** Each active board's current run (on the UTC date of `now`) for each of `tenants`, with its breakdown groups. */
async function eachCurrentRun(
  deps: Deps, tenants: readonly string[], now: number,
  visit: (lb: Leaderboard, run: RunRef['run'], tenant: string, groups: string[]) => Promise<void>,
): Promise<void> {
  const today = localDay('UTC', now);
  for (const lb of deps.store.current.leaderboards.values()) {
    if (lb.status !== 'active') continue;
    const run = runOf(lb, today);
    if (run === null) continue;
    for (const tenant of tenants) {
      const index = deps.keys.leaderboardIndex(tenant, lb.id);
      await visit(lb, run, tenant, lb.breakdownAttributes.length === 0 ? [''] : await deps.redis.smembers(index.groups(run.start)));
    }
  }
}

/** Records the changes of every active board's current run since the window before; answers how many deliveries. */
export async function recordRankingChanges(deps: Deps, pool: pg.Pool, types: ReadonlySet<WebhookType>): Promise<number> {
  const snapshot = deps.store.current;
  const now = deps.clock.now();
  // A tenant with a history import under way is left alone: once applied, its runs are taken as
  // seen (seeCurrentRuns), and the next window tells what moves after.
  const importing = new Set((await notedImports(deps.redis, deps.keys)).map((n) => n.tenant));
  let recorded = 0;
  await eachCurrentRun(deps, liveTenants(snapshot).filter((t) => !importing.has(t)), now, async (lb, run, tenant, groups) => {
    for (const group of groups) {
      recorded += await recordRun(deps, pool, types, snapshot, { tenant, lb, run, group }, windowOf(now));
    }
    if (!types.has('leaderboard.rank_changed') || !notesUsers(lb)) return;
    await forNotedUsers(deps, tenant, lb, run.start, now, async (users) => {
      for (const group of groups) recorded += await recordNoted(deps, pool, snapshot, { tenant, lb, run, group }, windowOf(now), users);
    });
  });
  return recorded;
}

interface RunRef {
  tenant: string;
  lb: Leaderboard;
  run: { start: string; end: string | null };
  group: string;
}

/** The run's view in a payload, and the event id of a type (and user) in the window. */
function runEvents(deps: Deps, snapshot: Snapshot, ref: RunRef, window: number) {
  const { tenant, lb, run, group } = ref;
  const board = { ...boardView(lb, snapshot, 'active', run), ...(group === '' ? {} : { breakdownAttributeValue: group }) };
  const idOf = (type: WebhookType, ...more: string[]) => eventId([deps.settings.prefix, type, tenant, lb.id, run.start, group, window, ...more]);
  return { board, idOf };
}

type Moved = { user: RankedUser; previous: string | null }[];

/** The places that differ from what the run's `:w` hash saw of them. */
async function movedOf(deps: Deps, reported: string, places: RankedUser[]): Promise<Moved> {
  if (places.length === 0) return [];
  const seen = await deps.redis.hmget(reported, ...places.map((r) => r.userId));
  const moved: Moved = [];
  places.forEach((user, i) => {
    if (seen[i] !== seenText(user.rank, user.value)) moved.push({ user, previous: seen[i] });
  });
  return moved;
}

/** One `leaderboard.rank_changed` per user moved (none for a user gone). */
async function rankChangedEvents(deps: Deps, snapshot: Snapshot, ref: RunRef, window: number, moved: Moved): Promise<WebhookEvent[]> {
  const { tenant } = ref;
  const { board, idOf } = runEvents(deps, snapshot, ref, window);
  const hashes = await Promise.all(moved.map(({ user }) => deps.redis.hgetall(deps.keys.forUser(tenant, user.userId).user)));
  const events: WebhookEvent[] = [];
  moved.forEach(({ user, previous }, i) => {
    const h = hashes[i];
    if (h.id === undefined) return;
    const was = seenPlace(previous);
    const type = 'leaderboard.rank_changed';
    events.push({
      type, id: idOf(type, user.userId), tenant, userId: user.userId, at: window, coalesce: false,
      body: JSON.stringify({
        type, user: userView(h, isControl(snapshot.notifications, tenant, h)),
        leaderboard: { ...board, rank: user.rank, value: user.value, previousRank: was?.rank ?? null, previousValue: was?.value ?? null },
      }),
    });
  });
  return events;
}

/** Records the moves of the users noted below the run's first REPORTED_TOP (those within them moved as read). */
async function recordNoted(deps: Deps, pool: pg.Pool, snapshot: Snapshot, ref: RunRef, window: number, users: string[]): Promise<number> {
  const shards = runShards(deps.keys, ref.tenant, ref.lb, ref.run.start, ref.group);
  const moved = await movedOf(deps, shards[0].reported, await placesOfRunUsers(deps.redis, shards, users));
  if (moved.length === 0) return 0;
  const recorded = await recordEvents(deps, pool, await rankChangedEvents(deps, snapshot, ref, window, moved));
  await deps.redis.hset(shards[0].reported, ...moved.flatMap(({ user }) => [user.userId, seenText(user.rank, user.value)]));
  return recorded;
}

/**
 * A tenant's current runs taken as seen, as they are now, telling nothing: their top 10 and each
 * ranked user's place written where the window's pass compares (a history import applied:
 * src/engine/batches/import-runs.ts), so that the next pass reports only what moves after it. A
 * user's move earlier in the window is then not reported (their next one is).
 */
export async function seeCurrentRuns(deps: Deps, tenant: string): Promise<void> {
  const { redis, keys } = deps;
  await eachCurrentRun(deps, [tenant], deps.clock.now(), async (lb, run, _, groups) => {
    for (const group of groups) {
      const shards = runShards(keys, tenant, lb, run.start, group);
      const ranked: RankedUser[] = await readRunPlaces(redis, shards, 0, Math.min(capOf(lb), REPORTED_TOP));
      if (ranked.length === 0) continue;
      await redis.hset(keys.leaderboardIndex(tenant, lb.id).state, reportedTopField(run.start, group), JSON.stringify(ranked.slice(0, TOP)));
      await redis.hset(shards[0].reported, ...ranked.flatMap((user) => [user.userId, seenText(user.rank, user.value)]));
    }
  });
}

async function recordRun(deps: Deps, pool: pg.Pool, types: ReadonlySet<WebhookType>, snapshot: Snapshot, ref: RunRef, window: number): Promise<number> {
  const { redis, keys } = deps;
  const { tenant, lb, run, group } = ref;
  // The run's first shard keeps what was reported of the whole run (its `:w` hash).
  const shards = runShards(keys, tenant, lb, run.start, group);
  const k = shards[0];
  const ranked: RankedUser[] = await readRunPlaces(redis, shards, 0, Math.min(capOf(lb), REPORTED_TOP));
  const { board, idOf } = runEvents(deps, snapshot, ref, window);
  const events: WebhookEvent[] = [];
  const topField = reportedTopField(run.start, group);
  const top = JSON.stringify(ranked.slice(0, TOP));
  const index = keys.leaderboardIndex(tenant, lb.id);
  const seenTop = types.has('leaderboard.changed') ? await redis.hget(index.state, topField) : null;
  if (types.has('leaderboard.changed') && ranked.length > 0 && seenTop !== top) {
    const type = 'leaderboard.changed';
    events.push({
      type, id: idOf(type), tenant, userId: '', at: window, coalesce: false,
      body: JSON.stringify({ type, leaderboard: { ...board, rankings: ranked.slice(0, TOP) } }),
    });
  }
  const moved = types.has('leaderboard.rank_changed') ? await movedOf(deps, k.reported, ranked) : [];
  events.push(...await rankChangedEvents(deps, snapshot, ref, window, moved));
  const recorded = await recordEvents(deps, pool, events);
  // Seen only once recorded: a pass that fails before records them again (under the same ids).
  if (seenTop !== top && types.has('leaderboard.changed')) await redis.hset(index.state, topField, top);
  if (moved.length > 0) await redis.hset(k.reported, ...moved.flatMap(({ user }) => [user.userId, seenText(user.rank, user.value)]));
  return recorded;
}
