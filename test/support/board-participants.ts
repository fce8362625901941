/**
 * Participants written straight into a board's run, as lua/leaderboardRank-8.lua keeps a user that
 * entered it (the ranking's member `<order>|<user id>` with the value as its score, the members
 * hash, the sequences hash), each user in their shard's keys (src/domain/leaderboards/shards.ts):
 * a board of thousands of users in a second, where their events would take minutes. What it leaves
 * out: the users' own records (names, totals) and histories; a read of such a board answers
 * `userName: null`. Used by the tests and benches of a read's cost (test/api/read-cost.test.ts,
 * bench/read-cost.ts).
 */
import type { Cluster, Redis } from 'ioredis';
import { orderOf } from '../../src/domain/leaderboards/runs.js';
import { shardOfUser } from '../../src/domain/leaderboards/shards.js';
import type { Keys } from '../../src/redis/keys.js';
import { runShards } from '../../src/redis/board-shards.js';
import { memberOf } from '../../src/redis/rankings.js';

/** A board's run as its keys need it. */
export interface BoardRun {
  tenant: string;
  /** The board's id, shards, and shard layout (`spread` for a board whose shards the Admin API set). */
  board: { id: string; shards?: number; shardSlots?: 'spread' };
  run: string;
  group?: string;
}

/** A participant: their id and value, and when they reached it (ms: the order of ties, the earlier first). */
export interface Participant {
  userId: string;
  value: number;
  at: number;
}

/** Writes `participants` into the run, a thousand a pipeline per shard. */
export async function writeParticipants(redis: Redis | Cluster, keys: Keys, where: BoardRun, participants: readonly Participant[]): Promise<void> {
  const shards = runShards(keys, where.tenant, where.board, where.run, where.group ?? '');
  for (let from = 0; from < participants.length; from += 1000) {
    const byShard = shards.map(() => ({ zadd: [] as (string | number)[], members: [] as string[], sequences: [] as string[] }));
    for (const p of participants.slice(from, from + 1000)) {
      const seq = `${p.at}-0`;
      const member = memberOf(orderOf(p.at, seq), p.userId);
      const b = byShard[shardOfUser(p.userId, shards.length)];
      b.zadd.push(p.value, member);
      b.members.push(p.userId, member);
      b.sequences.push(p.userId, seq);
    }
    await Promise.all(byShard.map((b, i) => (b.zadd.length === 0 ? null
      : redis.pipeline().zadd(shards[i].ranking, ...b.zadd).hset(shards[i].members, ...b.members).hset(shards[i].sequences, ...b.sequences).exec())));
  }
}
