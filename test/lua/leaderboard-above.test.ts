/**
 * A sharded board's reads of one shard called directly against real Redis:
 * lua/leaderboardPlaces-2.lua (some users' members, values and positions, a user not on the
 * ranking answered as none) and lua/leaderboardAbove-1.lua (the members above places of other
 * shards, the shard's own places skipped): on a ranking of many ties (members sharing an order,
 * and members of another form, among them), every count is what counting the ranking one member
 * at a time gives, whether the places come best first (those of one value
 * then share their counts and search their ties from one another) or in any order.
 */
import { describe, expect, it } from 'vitest';
import { scriptedRedis } from '../support/scripted-redis.js';
import { pack, run as above } from '../../src/redis/scripts/leaderboardAbove.js';
import { run as places } from '../../src/redis/scripts/leaderboardPlaces.js';
import { compare } from '../../src/redis/shard-merge.js';
import { random as seeded } from '../support/random.js';

const { keys, redis } = scriptedRedis();

/** A member as the placements write it: a 21-digit order, then the user. */
const memberOf = (order: number, user: string) => `${String(order).padStart(21, '0')}|${user}`;

describe('a shard\'s reads of a sharded board', () => {
  it('reads some users\' members, values and positions in one call, none for a user not on it', async () => {
    const k = keys.leaderboard('_', 'places-test', '2026-01-01', '', 0);
    await redis().del(k.ranking, k.members);
    await redis().zadd(k.ranking, 10, memberOf(1, 'a'), 20, memberOf(2, 'b'), 20, memberOf(3, 'c'));
    await redis().hset(k.members, 'a', memberOf(1, 'a'), 'b', memberOf(2, 'b'), 'c', memberOf(3, 'c'), 'gone', memberOf(4, 'gone'));
    expect(await places(redis(), k, ['a', 'nobody', 'c', 'gone', 'b'])).toEqual([
      { member: memberOf(1, 'a'), score: '10', position: 2 },
      null,
      { member: memberOf(3, 'c'), score: '20', position: 0 },
      null,
      { member: memberOf(2, 'b'), score: '20', position: 1 },
    ]);
    await redis().del(k.ranking, k.members);
  });

  it('counts the members above each place of another shard as counting them one by one does, in any order', async () => {
    const random = seeded(7);
    const ranking = keys.leaderboard('_', 'above-test', '2026-01-01', '', 0).ranking;
    await redis().del(ranking);
    // Members as the placements write them, a few orders shared (their users then decide), and a
    // few of another form; 600 over 4 values: long ties.
    const someMember = (user: string) => (random() < 0.1 ? `x${Math.floor(random() * 9)}|${user}` : memberOf(Math.floor(random() * (random() < 0.5 ? 40 : 1e9)), user));
    const held = Array.from({ length: 600 }, (_, i) => ({ score: Math.floor(random() * 4), member: someMember(`m${i}`) }));
    await redis().zadd(ranking, ...held.flatMap((e) => [e.score, e.member]));
    // Places of other shards (shard 1, 2), of the same values and between, and this shard's own (0).
    const asked = Array.from({ length: 300 }, (_, i) => ({
      score: String(Math.floor(random() * 9) / 2), member: someMember(`p${i}`), shard: 1 + (i % 3 === 0 ? -1 : i % 2),
    }));
    const expected = (a: { score: string; member: string }) => held.filter((e) => compare(e, { score: Number(a.score), member: a.member }) < 0).length;
    const best = [...asked].sort((a, b) => compare({ score: Number(a.score), member: a.member }, { score: Number(b.score), member: b.member }));
    for (const order of [best, asked, [...best].reverse()]) {
      const counts = await above(redis(), ranking, 0, pack(order));
      expect(counts).toEqual(order.map((a) => (a.shard === 0 ? null : expected(a))));
    }
    // A pivot of no shard is counted everywhere, its own ranking included: there, its position.
    const pivot = held[17];
    expect(await above(redis(), ranking, 0, pack([{ score: String(pivot.score), member: pivot.member, shard: -1 }])))
      .toEqual([await redis().zrevrank(ranking, pivot.member)]);
    await redis().del(ranking);
  });
});
