/**
 * A league cohort's decision (lua/leagueFinalise-2.lua, through its codec) against real Redis:
 * decided once, with its counts and each user's outcome (any user id, '__proto__' or one with a
 * '|', a key like any other); answered as recorded, and whether it is logged, once the finalisation
 * noted its `outcome` entry; and written back from that entry as it was (writeOutcome), unless the
 * cohort holds a decision already. How many it moves is the domain's rule (zoneSizes), for any
 * cohort and league, as a property: a cohort below the league's size moves in proportion, and never
 * moves all its users.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zoneSizes } from '../../src/domain/leaderboards/league.js';
import { markOutcomeLogged, writeOutcome } from '../../src/redis/leagues.js';
import * as leagueFinalise from '../../src/redis/scripts/leagueFinalise.js';
import { scriptedRedis } from '../support/scripted-redis.js';

const { keys, redis } = scriptedRedis();

describe('a league cohort decided', () => {
  it('is decided once, logged once, and written back from its entry as it was', async () => {
    const k = keys.leagueCohort('_', 'finalise-test', '2026-06-01', 1, 0);
    const copy = keys.leagueCohort('_', 'finalise-test', '2026-06-01', 1, 1);
    await redis().del(k.ranking, k.outcome, copy.outcome);
    await redis().zadd(k.ranking, 30, '5|__proto__', 20, '5|a|b', 10, '5|c');

    const first = await leagueFinalise.run(redis(), k, 1, 1, 3);
    expect(first).toMatchObject({ now: true, logged: false, counts: { n: 3, p: 1, d: 1, s: 1 } });
    expect(first.users.map((u) => [u.userId, u.outcome, u.rank, u.value])).toEqual([
      ['__proto__', 'promoted', 1, 30], ['a|b', 'stayed', 2, 20], ['c', 'demoted', 3, 10],
    ]);
    const texts = leagueFinalise.outcomeTexts(first.users);
    expect(Object.entries(texts)).toEqual([['__proto__', 'p|1|30'], ['a|b', 's|2|20'], ['c', 'd|3|10']]);

    // Decided again (a second pass): the recorded outcome, not logged until the pass notes it.
    await redis().zadd(k.ranking, 40, '5|c');
    const again = await leagueFinalise.run(redis(), k, 1, 1, 3);
    expect({ ...again, now: undefined }).toEqual({ ...first, now: undefined });
    expect(again.now).toBe(false);
    await markOutcomeLogged(redis(), k.outcome);
    expect(await leagueFinalise.run(redis(), k, 1, 1, 3)).toMatchObject({ now: false, logged: true, counts: first.counts, users: first.users });

    // Written back from the entry: the same hash; a cohort that holds a decision keeps it.
    expect(await writeOutcome(redis(), copy.outcome, first.counts, texts)).toBe(true);
    expect(await redis().hgetall(copy.outcome)).toEqual(await redis().hgetall(k.outcome));
    expect(await writeOutcome(redis(), copy.outcome, { n: 1, p: 1, d: 0, s: 0 }, { z: 'p|1|1' })).toBe(false);
    expect(await redis().hget(copy.outcome, 'u:z')).toBeNull();
    await redis().del(k.ranking, k.outcome, copy.outcome);
  });

  it('moves as many as the domain says, in proportion below the cohort size, never everyone', async () => {
    const k = keys.leagueCohort('_', 'finalise-sizes', '2026-06-01', 1, 0);
    const league = fc.integer({ min: 5, max: 30 }).chain((cohortSize) => fc.record({
      cohortSize: fc.constant(cohortSize),
      promote: fc.integer({ min: 0, max: cohortSize }),
      demote: fc.integer({ min: 0, max: cohortSize }),
      // Usually at most the size; above it when the size was lowered after the cohort filled.
      participants: fc.integer({ min: 0, max: cohortSize + 5 }),
    }));
    await fc.assert(fc.asyncProperty(league, async ({ cohortSize, promote, demote, participants }) => {
      await redis().del(k.ranking, k.outcome);
      for (let i = 0; i < participants; i++) await redis().zadd(k.ranking, 100 - i, `5|u${i}`);
      const decided = await leagueFinalise.run(redis(), k, promote, demote, cohortSize);
      await redis().del(k.ranking, k.outcome);
      const { up, down } = zoneSizes(promote, demote, participants, cohortSize);
      expect(decided.counts).toEqual({ n: participants, p: up, d: down, s: participants - up - down });
      // The first `up` move up and the last `down` down, in ranking order.
      expect(decided.users.map((u) => u.outcome)).toEqual([
        ...Array(up).fill('promoted'), ...Array(participants - up - down).fill('stayed'), ...Array(down).fill('demoted'),
      ]);
      if (participants > 0) expect(up + down).toBeLessThan(participants);
      // The contract's lines: in proportion (rounded down), cut only so as not to move everyone.
      const share = (count: number) => Math.floor((count * participants) / Math.max(cohortSize, participants, 1));
      expect(up).toBeLessThanOrEqual(share(promote));
      expect(down).toBeLessThanOrEqual(share(demote));
      if (share(promote) + share(demote) < participants) expect([up, down]).toEqual([share(promote), share(demote)]);
    }), { numRuns: 300, seed: 77 });
  });

  it('moves 1 up and 1 down of a cohort of 5 of 10 with 3 up and 2 down, nobody of a cohort of one', () => {
    expect(zoneSizes(3, 2, 10, 10)).toEqual({ up: 3, down: 2 });
    expect(zoneSizes(3, 2, 5, 10)).toEqual({ up: 1, down: 1 });
    expect(zoneSizes(3, 2, 1, 10)).toEqual({ up: 0, down: 0 });
    expect(zoneSizes(3, 2, 5, 5)).toEqual({ up: 3, down: 1 });
  });
});
