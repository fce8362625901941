/**
 * A sharded board's count of members above a place (lua/leaderboardAbove-1.lua) called directly
 * against real Redis: in another shard, the members above the value asked; in the user's own shard,
 * their member's position, and -1 when a placement of the user replaced that member since it was
 * read (its new member, above the old value, is the user, not one above them).
 */
import { describe, expect, it } from 'vitest';
import { scriptedRedis } from '../support/scripted-redis.js';

const { keys, redis } = scriptedRedis();

describe('the members above a place in one shard', () => {
  it('counts another shard\'s members above the value, and answers -1 for the user\'s replaced member', async () => {
    const ranking = keys.leaderboard('_', 'above-test', '2026-01-01', '', 0).ranking;
    await redis().del(ranking);
    // Three others at 10, 20 and 30; the mover read at 15, then placed again at 25.
    await redis().zadd(ranking, 10, '9|a', 20, '9|b', 30, '9|c', 25, '8|mover');
    // Another shard's count: the members above 15 (the mover's own new member among them, since the
    // script cannot tell it from another's there: it is never in another shard).
    expect(await redis().leaderboardAbove(ranking, '15', '7|mover', '0')).toEqual([3]);
    // Its own shard: the member read is gone, so the count would hold the user's new member.
    expect(await redis().leaderboardAbove(ranking, '15', '7|mover', '1')).toEqual([-1]);
    // Its own shard with the member as it is now: its position.
    expect(await redis().leaderboardAbove(ranking, '25', '8|mover', '1')).toEqual([1]);
    await redis().del(ranking);
  });
});
