/**
 * Every ranking of a tenant's boards (each run, breakdown group and league cohort), found by its
 * members hash: what takes a user off all of them at once walks these, an erasure
 * (src/engine/erasure/elsewhere.ts) and an exclusion (src/engine/fairplay/exclude.ts). A
 * ranking nobody was ever placed on has no members hash, and is not found.
 */
import { scanKeys } from '../../redis/client.js';
import type { LeaderboardKeys } from '../../redis/keys.js';
import type { Context } from '../context.js';

/** A ranking found: its keys, and the board and run it belongs to. */
export interface TenantRanking {
  keys: LeaderboardKeys;
  boardId: string;
  run: string;
}

export async function* tenantRankings(deps: Pick<Context, 'redis' | 'keys'>, tenant: string): AsyncGenerator<TenantRanking> {
  const { redis, keys } = deps;
  for await (const batch of scanKeys(redis, keys.rankingsOfTenant(tenant), 1000)) {
    for (const name of batch) {
      const run = keys.runOfMembers(name);
      const of = keys.boardRunOfMembers(name, tenant);
      if (run !== null && of !== null) yield { keys: run, ...of };
    }
  }
}
