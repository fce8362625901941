/**
 * `leaderboard.changed` and `leaderboard.rank_changed` (docs/webhooks.md): at most once per 15
 * minutes, from the clock rather than the log. At the end of each 15-minute window of the service's
 * clock, a pass of the webhooks worker reads the ranking of every active board's current run (per
 * tenant and breakdown group, up to its participants, at most MAX_READ) and compares it with what
 * the window before saw:
 * - the top 10 changed: one `leaderboard.changed` with them (the last seen kept in the board's
 *   state hash, `c:<run>:<group>`);
 * - a user's rank or value changed (overtaken users too): one `leaderboard.rank_changed` each, with
 *   the previous rank and value (null for a newcomer; kept in the run's `:w` hash).
 * The log drain does nothing for them, so the event path and the drain pay nothing. Event ids
 * name the window: a pass made again, or by several worker processes, records each once.
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
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { seenPlace, seenText } from '../../redis/rankings.js';
import { readRunPlaces } from '../../redis/sharded-rankings.js';
import { runShards } from '../leaderboards/shards.js';
import { reportedTopField } from '../../redis/board-state.js';
import { recordEvents } from './record.js';

/** The window: `leaderboard.changed` and `leaderboard.rank_changed` at most once in each. */
export const RANKINGS_WINDOW_MS = 15 * 60_000;
/** Members of a ranking read (a board without a cap of participants reports its first ones). */
const MAX_READ = 1000;
const TOP = 10;

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>;

/** Whether an active endpoint wants either event. */
export function rankingsWanted(types: ReadonlySet<WebhookType>): boolean {
  return types.has('leaderboard.changed') || types.has('leaderboard.rank_changed');
}

/** The start of the window `now` is in. */
export const windowOf = (now: number): number => now - (now % RANKINGS_WINDOW_MS);

/** Records the changes of every active board's current run since the window before; answers how many deliveries. */
export async function recordRankingChanges(deps: Deps, pool: pg.Pool, types: ReadonlySet<WebhookType>): Promise<number> {
  const snapshot = deps.store.current;
  const now = deps.clock.now();
  const today = localDay('UTC', now);
  let recorded = 0;
  for (const lb of snapshot.leaderboards.values()) {
    if (lb.status !== 'active') continue;
    const run = runOf(lb, today);
    if (run === null) continue;
    for (const tenant of liveTenants(snapshot)) {
      const index = deps.keys.leaderboardIndex(tenant, lb.id);
      const groups = lb.breakdownAttributes.length === 0 ? [''] : await deps.redis.smembers(index.groups(run.start));
      for (const group of groups) {
        recorded += await recordRun(deps, pool, types, snapshot, { tenant, lb, run, group }, windowOf(now));
      }
    }
  }
  return recorded;
}

interface RunRef {
  tenant: string;
  lb: Leaderboard;
  run: { start: string; end: string | null };
  group: string;
}

async function recordRun(deps: Deps, pool: pg.Pool, types: ReadonlySet<WebhookType>, snapshot: Snapshot, ref: RunRef, window: number): Promise<number> {
  const { redis, keys, settings } = deps;
  const { tenant, lb, run, group } = ref;
  // The run's first shard keeps what was reported of the whole run (its `:w` hash).
  const shards = runShards(keys, tenant, lb, run.start, group);
  const k = shards[0];
  const ranked: RankedUser[] = await readRunPlaces(redis, shards, 0, Math.min(capOf(lb), MAX_READ));
  const board = { ...boardView(lb, snapshot, 'active', run), ...(group === '' ? {} : { breakdownAttributeValue: group }) };
  const idOf = (type: WebhookType, ...more: string[]) => eventId([settings.prefix, type, tenant, lb.id, run.start, group, window, ...more]);
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
  const moved: { user: RankedUser; previous: string | null }[] = [];
  if (types.has('leaderboard.rank_changed') && ranked.length > 0) {
    const seen = await redis.hmget(k.reported, ...ranked.map((r) => r.userId));
    ranked.forEach((user, i) => {
      if (seen[i] !== seenText(user.rank, user.value)) moved.push({ user, previous: seen[i] });
    });
    const hashes = await Promise.all(moved.map(({ user }) => redis.hgetall(keys.forUser(tenant, user.userId).user)));
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
  }
  const recorded = await recordEvents(deps, pool, events);
  // Seen only once recorded: a pass that fails before records them again (under the same ids).
  if (seenTop !== top && types.has('leaderboard.changed')) await redis.hset(index.state, topField, top);
  if (moved.length > 0) await redis.hset(k.reported, ...moved.flatMap(({ user }) => [user.userId, seenText(user.rank, user.value)]));
  return recorded;
}
