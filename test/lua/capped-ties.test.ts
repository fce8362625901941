/**
 * Who holds a full capped ranking (lua/leaderboardRank-8.lua) does not hang on the order the
 * placements arrive in, as a property over real Redis: users reach values at distinct moments
 * (many of them tied on a value), their placements arrive in any order (phase 2, a pass placing
 * several users at once, a restore's replay), and the ranking holds the first `cap` by value, ties
 * to whoever reached the value first, ranked so.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scriptedRedis } from '../support/scripted-redis.js';
import { run as rank } from '../../src/redis/scripts/leaderboardRank.js';
import { orderOf } from '../../src/domain/leaderboards/runs.js';

const { keys, redis } = scriptedRedis();

const placements = fc.record({
  cap: fc.integer({ min: 1, max: 6 }),
  users: fc.uniqueArray(fc.record({ value: fc.integer({ min: 1, max: 3 }), ms: fc.integer({ min: 1, max: 1_000_000 }) }), {
    minLength: 1, maxLength: 14, selector: (u) => u.ms,
  }),
  seed: fc.integer(),
});

describe('a full capped ranking', () => {
  it('holds the first to reach the highest values, whatever order their placements arrive in', async () => {
    let run = 0;
    await fc.assert(fc.asyncProperty(placements, async ({ cap, users, seed }) => {
      const k = keys.leaderboard('_', 'capped-ties', `2026-01-${String(1 + (run++ % 28)).padStart(2, '0')}`, '', 0);
      const all = [k.ranking, k.members, k.expiry, k.falls, k.sequences, k.stats, ...users.map((_, i) => k.history(`u${i}`))];
      await redis().del(...all);
      const arrival = users.map((u, i) => ({ ...u, id: `u${i}` }));
      // The arrival order: a shuffle by the seed.
      const shuffled = fc.sample(fc.shuffledSubarray(arrival, { minLength: arrival.length, maxLength: arrival.length }), { seed, numRuns: 1 })[0];
      for (const u of shuffled) await rank(redis(), k, u.id, u.value, orderOf(u.ms), cap, u.ms, '', '', undefined);
      const expected = [...arrival].sort((a, b) => b.value - a.value || a.ms - b.ms).slice(0, cap).map((u) => u.id);
      const held = (await redis().zrevrange(k.ranking, 0, -1)).map((m) => m.slice(m.indexOf('|') + 1));
      await redis().del(...all);
      expect(held).toEqual(expected);
    }), { numRuns: 200, seed: 72 });
  });
});
