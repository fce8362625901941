/**
 * A league cohort's decision (lua/leagueFinalise-2.lua, through its codec) against real Redis:
 * decided once, with its counts and each user's outcome (any user id, '__proto__' or one with a
 * '|', a key like any other); answered as recorded, and whether it is logged, once the finalisation
 * noted its `outcome` entry; and written back from that entry as it was (writeOutcome), unless the
 * cohort holds a decision already.
 */
import { describe, expect, it } from 'vitest';
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

    const first = await leagueFinalise.run(redis(), k, 1, 1);
    expect(first).toMatchObject({ now: true, logged: false, counts: { n: 3, p: 1, d: 1, s: 1 } });
    expect(first.users.map((u) => [u.userId, u.outcome, u.rank, u.value])).toEqual([
      ['__proto__', 'promoted', 1, 30], ['a|b', 'stayed', 2, 20], ['c', 'demoted', 3, 10],
    ]);
    const texts = leagueFinalise.outcomeTexts(first.users);
    expect(Object.entries(texts)).toEqual([['__proto__', 'p|1|30'], ['a|b', 's|2|20'], ['c', 'd|3|10']]);

    // Decided again (a second pass): the recorded outcome, not logged until the pass notes it.
    await redis().zadd(k.ranking, 40, '5|c');
    const again = await leagueFinalise.run(redis(), k, 1, 1);
    expect({ ...again, now: undefined }).toEqual({ ...first, now: undefined });
    expect(again.now).toBe(false);
    await markOutcomeLogged(redis(), k.outcome);
    expect(await leagueFinalise.run(redis(), k, 1, 1)).toMatchObject({ now: false, logged: true, counts: first.counts, users: first.users });

    // Written back from the entry: the same hash; a cohort that holds a decision keeps it.
    expect(await writeOutcome(redis(), copy.outcome, first.counts, texts)).toBe(true);
    expect(await redis().hgetall(copy.outcome)).toEqual(await redis().hgetall(k.outcome));
    expect(await writeOutcome(redis(), copy.outcome, { n: 1, p: 1, d: 0, s: 0 }, { z: 'p|1|1' })).toBe(false);
    expect(await redis().hget(copy.outcome, 'u:z')).toBeNull();
    await redis().del(k.ranking, k.outcome, copy.outcome);
  });
});
