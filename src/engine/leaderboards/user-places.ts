/**
 * Every place a user holds on the tenant's boards, for their export (docs/api.md, "Exporting a
 * user"): each run (and breakdown group, and league cohort) whose ranking names them, with their
 * rank, value and stored changes, and each finished run whose winners list them. A board's runs
 * are not listed anywhere by user, so the tenant's rankings are walked (as an erasure and an
 * exclusion do: src/engine/leaderboards/tenant-rankings.ts), a cost that grows with the number of
 * runs, not users.
 */
import { breakdownGroup, groupName } from '../../domain/leaderboards/runs.js';
import { attributeField } from '../../model/fields.js';
import type { UserHash } from '../../domain/users.js';
import { winnersOf } from '../../redis/board-state.js';
import { scanKeys } from '../../redis/client.js';
import { pruneStreakBoard } from './prune-streak-board.js';
import { tenantRankings } from './tenant-rankings.js';
import { shardsOf } from '../../domain/leaderboards/shards.js';
import { placeOfRunUser } from '../../redis/sharded-rankings.js';
import { runShards, userShard } from '../../redis/board-shards.js';
import { globEscaped } from '../../redis/keys.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** A place in a run's ranking (its group's, or its league cohort's). */
export interface BoardPlace {
  boardId: string;
  run: string;
  /** The breakdown group's values, in the board's order; null for a board without (or a group the user's attributes no longer name). */
  group: string[] | null;
  /** A league's cohort: the tier's index and the cohort's number, from 0. */
  cohort: { tier: number; n: number } | null;
  rank: number | null;
  value: number | null;
  /** The stored rank changes, newest first (as kept: `<rank>|<value>|<ms>`-like texts, src/domain/leaderboards/rank-history.ts). */
  changes: string[];
}

/** A finished run whose winners list the user. */
export interface RunWon {
  boardId: string;
  run: string;
  /** The breakdown group's name as the workers recorded it ('' for a board without). */
  group: string;
  rank: number;
  value: number;
}

/** A run's parts from its tag, `{lb:<tenant>:<board>:<run>[:g<hash>|:c<tier>.<n>][:s<n>]}`. */
function runParts(key: string, prefix: string, tenant: string): { boardId: string; run: string; extra: string } | null {
  const head = `${prefix}:{lb:${tenant}:`;
  if (!key.startsWith(head)) return null;
  const [boardId, run, ...rest] = key.slice(head.length, key.lastIndexOf('}')).split(':');
  // A shard's tag ends in `:s<n>` (src/redis/keys.ts).
  if (rest.length > 0 && /^s\d+$/.test(rest[rest.length - 1])) rest.pop();
  return boardId === undefined || run === undefined ? null : { boardId, run, extra: rest[0] ?? '' };
}

/** The user's places on the tenant's boards, and the finished runs they won a place in. */
export async function userPlaces(deps: Deps, tenant: string, user: UserHash): Promise<{ places: BoardPlace[]; won: RunWon[] }> {
  const { redis, keys, store } = deps;
  const userId = user.id;
  const snapshot = store.current;
  const places: BoardPlace[] = [];
  for await (const { keys: k } of tenantRankings(deps, tenant)) {
    const name = k.members;
    const parts = runParts(name, keys.prefix, tenant);
    if (parts === null) continue;
    const lb = snapshot.leaderboards.get(parts.boardId);
    if (lb?.rankBy === 'streak') await pruneStreakBoard(deps, k);
    const member = await redis.hget(k.members, userId);
    if (member === null) continue;
    let [rank, score, changes] = await Promise.all([redis.zrevrank(k.ranking, member), redis.zscore(k.ranking, member), redis.lrange(k.history(userId), 0, -1)]);
    const cohort = /^c(\d+)\.(\d+)$/.exec(parts.extra);
    let group: string[] | null = null;
    if (lb !== undefined && parts.extra.startsWith('g')) {
      const mine = breakdownGroup(lb, snapshot, (key) => user[attributeField(key)]);
      if (mine !== null && userShard(keys, tenant, lb, parts.run, groupName(mine), userId).members === name) group = mine;
    }
    // A board of several shards: the rank on the whole run (the shard's own is a part of it).
    if (lb !== undefined && cohort === null && shardsOf(lb) > 1 && (group !== null || !parts.extra.startsWith('g'))) {
      const whole = await placeOfRunUser(redis, runShards(keys, tenant, lb, parts.run, group === null ? '' : groupName(group)), userId);
      if (whole !== null) [rank, score] = [whole.rank - 1, String(whole.value)];
    }
    places.push({
      boardId: parts.boardId, run: parts.run, group,
      cohort: cohort === null ? null : { tier: Number(cohort[1]), n: Number(cohort[2]) },
      rank: rank === null ? null : rank + 1, value: score === null ? null : Number(score), changes,
    });
  }
  const won: RunWon[] = [];
  const head = `${keys.prefix}:{lbf:${tenant}:`;
  for await (const batch of scanKeys(redis, `${keys.prefix}:{lbf:${globEscaped(tenant)}:*}:state`, 1000)) {
    for (const state of batch) {
      const boardId = state.slice(head.length, state.lastIndexOf('}'));
      for (const { run, group, winners } of winnersOf(await redis.hgetall(state))) {
        for (const w of winners) if (w.userId === userId) won.push({ boardId, run, group, rank: w.rank, value: w.value });
      }
    }
  }
  return { places, won };
}
