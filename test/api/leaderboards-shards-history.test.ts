/**
 * A sharded board's rank history under concurrent placements of one user (docs/api.md, "Shards"),
 * on single Redis and on the Cluster: with the clock standing still, a user's events sent at once
 * are placed in the same millisecond, their placements' scripts often one after the other before
 * any of them states its entry again with the ranks on the whole run; each entry must still end
 * with the whole run's ranks, as a board of one ranking fed the same events records them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { shardOfUser } from '../../src/domain/leaderboards/shards.js';
import { parseRankChange } from '../../src/domain/leaderboards/rank-history.js';
import { userShard } from '../../src/redis/board-shards.js';

/** Users above the one who moves, spread over the shards. */
const ABOVE = 30;
const EVENTS = 12;

describe.each(targets())('a sharded board\'s history under concurrent placements on %s', (target) => {
  let s: TestServer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    const common = { status: 'active', start: '2026-01-01', rankBy: 'metric', metricId: plays, maxParticipants: null };
    for (const board of [{ name: 'One', key: 'one' }, { name: 'Three', key: 'three', shards: 3 }]) {
      ids[board.key] = (await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, ...board })).id;
    }
    for (let i = 0; i < ABOVE; i++) await s.event('plays', { id: `a${i}`, name: `Above ${i}` }, 100 + i);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const history = async (key: string, userId: string) => {
    const { keys, redis } = s.api.services;
    const lb = s.api.services.store.current.leaderboards.get(ids[key])!;
    const k = userShard(keys, DEFAULT_TENANT, lb, lb.start, '', userId);
    return (await redis.lrange(k.history(userId), 0, -1)).map(parseRankChange);
  };

  it('states every entry of concurrent placements with the ranks on the whole run', async () => {
    const mover = 'mover';
    // The shard ranks differ from the run's: the mover's shard holds fewer of those above.
    const inShard = Array.from({ length: ABOVE }, (_, i) => `a${i}`).filter((u) => shardOfUser(u, 3) === shardOfUser(mover, 3)).length;
    expect(inShard).toBeLessThan(ABOVE);
    const answers = await Promise.all(Array.from({ length: EVENTS }, () => s.event('plays', { id: mover, name: 'Mover' }, 1)));
    // (An answer leaves out a board its placement did not change: one that arrived after a later one's.)
    const ranks = answers.flatMap((a) => (a.leaderboards.three === undefined ? [] : [a.leaderboards.three.rank]));
    expect(ranks.length).toBeGreaterThan(0);
    expect(new Set(ranks)).toEqual(new Set([ABOVE + 1]));
    // A placement that arrives after a later one's changes nothing: some values may be skipped.
    for (const key of ['one', 'three']) {
      const entries = (await history(key, mover)).reverse();
      expect(entries.length).toBeGreaterThan(1);
      expect(entries.map((e) => e.value).at(-1)).toBe(EVENTS);
      entries.forEach((e, i) => {
        // The rank before is read before the placement's script: a placement of the user's own that
        // lands meanwhile is not in it (null or the whole run's rank, never the shard's).
        const before = key === 'one' || i === 0 ? (i === 0 ? null : ABOVE + 1) : expect.toBeOneOf([null, ABOVE + 1]);
        expect(e, key).toEqual({
          at: Date.parse('2026-05-04T10:00:00Z'), previousRank: before, rank: ABOVE + 1,
          previousValue: i === 0 ? null : entries[i - 1].value, value: expect.any(Number),
        });
        if (i > 0) expect(e.value!).toBeGreaterThan(entries[i - 1].value!);
      });
    }
  });
});
