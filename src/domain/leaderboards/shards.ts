/**
 * A board's shards (docs/api.md, "Shards"): an uncapped board may spread each run (and breakdown
 * group) over `shards` rankings, each on a hash slot of its own, so a Cluster spreads one large run
 * over its nodes. A user always lands in the same shard: a stable hash of the user id. A rank is
 * then the sum, over the shards, of the members above the user in each (src/redis/sharded-rankings.ts).
 */
import type { Leaderboard } from '../../model/entities.js';

/** The most shards a board may have. */
export const MAX_SHARDS = 64;

/** How many rankings each run of `lb` is spread over (1: one, named as ever). */
export function shardsOf(lb: Pick<Leaderboard, 'shards'>): number {
  return lb.shards ?? 1;
}

/** The shard count its keys are spread over the slot space by (Keys.leaderboard's `spread`), or 0. */
export function spreadOf(lb: Pick<Leaderboard, 'shards' | 'shardSlots'>): number {
  return lb.shardSlots === 'spread' && shardsOf(lb) > 1 ? shardsOf(lb) : 0;
}

/** `next`'s shard layout: spread whenever its shards are set anew; as before while they stay. */
export function shardSlotsOf(previous: Pick<Leaderboard, 'shards' | 'shardSlots'> | null, next: Pick<Leaderboard, 'shards'>): Pick<Leaderboard, 'shardSlots'> {
  if (shardsOf(next) <= 1) return {};
  if (previous !== null && shardsOf(previous) === shardsOf(next)) return previous.shardSlots === undefined ? {} : { shardSlots: previous.shardSlots };
  return { shardSlots: 'spread' };
}

/**
 * The shard of `userId` on a board of `shards` shards, 0 to shards - 1: 32-bit FNV-1a over the id's
 * UTF-16 code units, modulo the count (the same on every process and version: a user's place stays
 * where it is).
 */
export function shardOfUser(userId: string, shards: number): number {
  if (shards <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    h ^= userId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** Why `lb` cannot have its shards, or null: shards spread an uncapped board only. */
export function checkShards(lb: Pick<Leaderboard, 'shards' | 'maxParticipants'>): string | null {
  const n = shardsOf(lb);
  if (n > 1 && lb.maxParticipants !== null) {
    return `shards (${n}) needs an uncapped board (maxParticipants null, or uncapped: true): a capped board's admission needs its one ranking`;
  }
  return null;
}
