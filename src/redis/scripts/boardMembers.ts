/**
 * The codec of lua/boardMembers-n.lua: some users of one board run read together, each as they
 * stand at one moment (their member and its score, sequence, expiry, what the webhooks and the
 * live publisher last saw, and the DUMPs of their history and awards).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    boardMembersBuffer(numberOfKeys: number, ...keysAndArgs: string[]): Result<(Buffer | null)[], Context>;
  }
}

/** One user of a run; null where the run holds nothing of theirs. */
export interface MemberState {
  userId: string;
  member: Buffer | null;
  score: Buffer | null;
  sequence: Buffer | null;
  expiry: Buffer | null;
  reported: Buffer | null;
  published: Buffer | null;
  history: Buffer | null;
  awards: Buffer | null;
}

/** The fields of a MemberState after the user id, in the script's order. */
export const MEMBER_FIELDS = ['member', 'score', 'sequence', 'expiry', 'reported', 'published', 'history', 'awards'] as const;

/** The users' states, in `userIds`' order (every user, those the run holds nothing of too). */
export async function run(redis: RedisClient, run: LeaderboardKeys, userIds: string[]): Promise<MemberState[]> {
  const keys = [run.ranking, run.members, run.sequences, run.expiry, run.reported, run.live];
  for (const userId of userIds) keys.push(run.history(userId), run.awards(userId));
  const flat = await redis.boardMembersBuffer(keys.length, ...keys, ...userIds);
  return userIds.map((userId, i) => {
    const state = { userId } as MemberState;
    MEMBER_FIELDS.forEach((field, j) => { state[field] = flat[i * MEMBER_FIELDS.length + j] ?? null; });
    return state;
  });
}
