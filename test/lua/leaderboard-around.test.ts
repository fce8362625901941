/**
 * A user's place and the page around it on one ranking in one call (lua/leaderboardAround-2.lua,
 * through its codec) against real Redis: rank, value and the page from the user's position plus
 * an offset, the top at most; nothing for a user off the ranking, or whose member it no longer holds.
 */
import { describe, expect, it } from 'vitest';
import * as leaderboardAround from '../../src/redis/scripts/leaderboardAround.js';
import { scriptedRedis } from '../support/scripted-redis.js';

const { keys, redis } = scriptedRedis();

describe('a place and its page in one call', () => {
  it('answers the user\'s place and the places from an offset of it', async () => {
    const k = keys.leaderboard('_', 'around-test', '2026-01-01', '', 0);
    await redis().del(k.ranking, k.members);
    // a 50, b 40, c 30 and d 30 (c reached it first: the larger member), e 10; f named by the
    // members hash but gone from the ranking.
    await redis().zadd(k.ranking, 50, '5|a', 40, '5|b', 30, '9|c', 30, '8|d', 10, '5|e');
    await redis().hset(k.members, { a: '5|a', b: '5|b', c: '9|c', d: '8|d', e: '5|e', f: '5|f' });
    const places = (list: { userId: string; rank: number; value: number }[]) => list.map((p) => [p.userId, p.rank, p.value]);

    const d = await leaderboardAround.run(redis(), k, 'd', -1, 3);
    expect(d?.place).toEqual({ userId: 'd', rank: 4, value: 30 });
    expect(places(d!.places)).toEqual([['c', 3, 30], ['d', 4, 30], ['e', 5, 10]]);
    // Above the top: from the top. Past the end: what there is.
    expect(places((await leaderboardAround.run(redis(), k, 'b', -5, 2))!.places)).toEqual([['a', 1, 50], ['b', 2, 40]]);
    expect(places((await leaderboardAround.run(redis(), k, 'e', 0, 10))!.places)).toEqual([['e', 5, 10]]);
    // The place alone.
    expect(await leaderboardAround.run(redis(), k, 'a', 0, 0)).toEqual({ place: { userId: 'a', rank: 1, value: 50 }, places: [] });
    // Off the ranking: not in the members hash, or named there and gone from the ranking.
    expect(await leaderboardAround.run(redis(), k, 'z', 0, 3)).toBeNull();
    expect(await leaderboardAround.run(redis(), k, 'f', 0, 3)).toBeNull();
    await redis().del(k.ranking, k.members);
  });
});
