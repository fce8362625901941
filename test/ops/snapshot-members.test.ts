/**
 * A large run of an uncapped board in the snapshots member by member (src/redis/run-members.ts):
 * kept in buckets of users, each bucket written again only when one of its users changed, and
 * restored exactly (ranks, values, histories and awards of users whose ids need escaping in key
 * names too), an erased user taken out of the buckets that hold them only; a user a streak board
 * dropped, whose history is all the run keeps of them, kept and restored as well. The threshold
 * is set to 0 here: every run of an uncapped board is read so.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { takeSnapshot } from '../../src/engine/durability/snapshot.js';
import { createLogger } from '../../src/lib/log.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { copyConfig } from '../../workers/config-copy.js';
import { copyAgain } from '../../src/engine/erasure/snapshot-copies.js';
import { unpackMembers } from '../../src/redis/run-members.js';
import { putStreakSettings } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const log = createLogger('silent');
/** Every run of an uncapped board read by buckets of users. */
const BY_BUCKETS = { LAUREL_SNAPSHOT_RUN_KEYS: '0' };

describe.each(targets())('a large uncapped run in the snapshots on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  /**
   * A server reading every uncapped run by buckets, and a pool of its database, ended after the
   * file; the server is `at.s`, which a restart after a restore replaces (served).
   */
  async function started(): Promise<{ at: { s: TestServer }; pool: Awaited<ReturnType<typeof connectPostgres>> }> {
    const at = { s: await startTestServer({ target, clock: 'manual', env: BY_BUCKETS }) };
    const { prefix } = at.s;
    cleanups.push(() => deletePostgresRows(at.s.settings, [prefix]));
    cleanups.push(() => at.s.close());
    const pool = await connectPostgres(at.s.settings);
    cleanups.push(() => pool.end());
    return { at, pool };
  }

  /** The installation served again (its prefix and admin key), after a restore. */
  async function served(at: { s: TestServer }): Promise<TestServer> {
    at.s = await startTestServer({ target, clock: 'manual', env: { ...BY_BUCKETS, LAUREL_PREFIX: at.s.prefix, LAUREL_ADMIN_KEY: at.s.adminKey } });
    return at.s;
  }

  it('is kept by buckets of users, written again where they changed, and restored exactly', { timeout: 180_000 }, async () => {
    const { at, pool } = await started();
    let s = at.s;
    const { prefix } = s;

    await s.setClock('2026-03-02T08:00:00Z');
    const ids = await s.metrics('lessons');
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Everyone', key: 'everyone', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: null },
        { name: 'XP', key: 'xp-all', status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, maxParticipants: null },
      ],
    });
    expect(boards.status, boards.text).toBe(201);

    // 2,100 users (three buckets' worth: four buckets), ties among them; ids a key name escapes.
    const odd = ['a:b', '50%', '%3A', 'ü-ß', 'x:%:y'];
    const users = [...odd, ...Array.from({ length: 2100 - odd.length }, (_, i) => `u${i}`)];
    for (let i = 0; i < users.length; i += 50) {
      await Promise.all(users.slice(i, i + 50).map((u, j) => s.event('lessons', u, 1 + ((i + j) % 7))));
    }
    await s.setClock('2026-03-03T08:00:00Z');
    for (const u of odd) await s.event('lessons', u, 3);

    const rows = async () => (await pool.query<{ key: string; snapshot: number }>(
      `SELECT key, snapshot::int AS snapshot FROM laurel_snapshot_keys WHERE prefix = $1 AND key LIKE '%{lb:%' ORDER BY key`, [prefix],
    )).rows;
    const full = await takeSnapshot(s.api.services, pool, true);
    const kept = await rows();
    const buckets = kept.filter((r) => r.key.includes('}:#m'));
    // Both boards' runs by buckets (four each), and no run key DUMPed whole but the counts over
    // its users (rank changes, falls).
    expect(buckets.map((r) => r.key.slice(r.key.indexOf('}:#m') + 2)).sort()).toEqual(['#m4.0', '#m4.0', '#m4.1', '#m4.1', '#m4.2', '#m4.2', '#m4.3', '#m4.3']);
    expect(kept.filter((r) => !r.key.includes('}:#m')).map((r) => r.key.slice(r.key.lastIndexOf('}:') + 2)).sort()).toEqual(['f', 'f', 's', 's']);

    // One user's event changes their bucket of each board only.
    const placed = (await s.request('GET', '/api/users/u7/leaderboards/everyone')).body.value as number;
    await s.event('lessons', 'u7', 5);
    // Placed after the answer: waited for.
    await expect.poll(async () => (await s.request('GET', '/api/users/u7/leaderboards/everyone')).body.value).toBe(placed + 5);
    await expect.poll(async () => (await s.request('GET', '/api/users/u7/leaderboards/xp-all')).body.value).toBe(placed * 10 + 50);
    const incremental = await takeSnapshot(s.api.services, pool);
    expect(incremental!.full).toBe(false);
    const again = await rows();
    const rewritten = again.filter((r) => r.snapshot === incremental!.id && r.key.includes('}:#m'));
    expect(rewritten).toHaveLength(2);
    expect(again.filter((r) => r.snapshot === full!.id && r.key.includes('}:#m'))).toHaveLength(6);


    const reads = async () => {
      const out: Record<string, unknown> = {};
      for (const board of ['everyone', 'xp-all']) {
        for (let offset = 0; offset < users.length; offset += 1000) {
          const r = await s.request('GET', `/api/leaderboards/${board}?limit=1000&offset=${offset}`);
          expect(r.status, r.text).toBe(200);
          out[`${board} ${offset}`] = r.body;
        }
        for (const u of [...odd, 'u7', 'u2000']) {
          const r = await s.request('GET', `/api/users/${encodeURIComponent(u)}/leaderboards/${board}`);
          expect(r.status, r.text).toBe(200);
          out[`${board} ${u}`] = r.body;
        }
      }
      for (const u of odd) out[`points ${u}`] = (await s.request('GET', `/api/users/${encodeURIComponent(u)}/points/xp?awards=100`)).body;
      return out;
    };
    const before = await reads();
    expect((before['everyone a:b'] as { history: unknown[] }).history).toHaveLength(2);

    // Redis lost: the snapshot's buckets give every place back (the configuration from its copy,
    // which the workers make).
    await copyConfig(s.api.services, pool);
    await s.close();
    const result = await restoreWith(s.settings, log, pool, false);
    expect(result).toMatchObject({ failed: 0 });
    s = await served(at);
    await s.setClock('2026-03-03T08:00:00Z');
    const after = await reads();
    for (const path of Object.keys(before)) expect(after[path], path).toEqual(before[path]);

    // An erasure's copies made again: the user taken out of the buckets that hold them (one a
    // board), the others left as read; not those whose bytes hold its id as a part of another
    // (u10, u100, ...); none for a deleted tenant's erasure.
    const bucketRows = async () => new Map((await pool.query<{ key: string; dump: Buffer }>(
      `SELECT key, dump FROM laurel_snapshot_keys WHERE prefix = $1 AND strpos(key, '}:#m') > 0`, [prefix],
    )).rows.map((r) => [r.key, unpackMembers(r.dump).map((u) => u.userId)]));
    const held = await bucketRows();
    expect([...held.values()].filter((ids) => ids.some((id) => id.includes('u1'))).length).toBeGreaterThan(2);
    expect(await copyAgain(s.api.services, pool, held.keys(), 'u1')).toBe(2);
    expect(await copyAgain(s.api.services, pool, held.keys(), null)).toBe(0);
    const erased = await bucketRows();
    for (const [key, ids] of held) expect(erased.get(key), key).toEqual(ids.filter((id) => id !== 'u1'));
  });

  it('keeps the users a streak board dropped, whose history is all the run holds of them', { timeout: 120_000 }, async () => {
    const { at, pool } = await started();
    let s = at.s;
    const { prefix } = s;

    await s.setClock('2026-03-02T08:00:00Z');
    const ids = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    const created = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Streaks', key: 'streaks', status: 'active', rankBy: 'streak', maxParticipants: null }],
    });
    expect(created.status, created.text).toBe(201);
    const users = Array.from({ length: 40 }, (_, i) => `s${i}`);
    await Promise.all(users.map((u) => s.event('lessons', u, 1)));
    await s.setClock('2026-03-03T08:00:00Z');
    await Promise.all(users.slice(0, 10).map((u) => s.event('lessons', u, 1)));
    // The streaks of March 2nd alone are lost once the 3rd has passed: the read drops them.
    await s.setClock('2026-03-04T08:00:00Z');
    const ranked = async () => {
      const r = await s.request('GET', '/api/leaderboards/streaks?limit=100');
      expect(r.status, r.text).toBe(200);
      return (r.body.rankings as { userId: string; value: number }[]).map((x) => `${x.userId} ${x.value}`).sort();
    };
    expect(await ranked()).toEqual(users.slice(0, 10).map((u) => `${u} 2`).sort());

    const board = ((await s.request('GET', '/admin/v1/leaderboards?limit=100')).body as { id: string; key: string; start: string }[])
      .find((b) => b.key === 'streaks')!;
    const run = s.api.services.keys.leaderboard('_', board.id, board.start, '');
    const histories = async () => {
      const { redis } = s.api.services;
      return Object.fromEntries(await Promise.all(users.map(async (u) => [u, await redis.lrange(run.history(u), 0, -1)] as const)));
    };
    // A dropped user: no member, sequence or expiry in the run any more, their history still there.
    const { redis } = s.api.services;
    expect([await redis.hget(run.members, 's20'), await redis.hget(run.sequences, 's20'), await redis.zscore(run.expiry, 's20')]).toEqual([null, null, null]);
    const before = await histories();
    for (const u of users) expect(before[u].length, u).toBeGreaterThan(0);

    await takeSnapshot(s.api.services, pool, true);
    const kept = await pool.query<{ dump: Buffer }>(`SELECT dump FROM laurel_snapshot_keys WHERE prefix = $1 AND strpos(key, '}:#m') > 0`, [prefix]);
    expect(kept.rows.flatMap((r) => unpackMembers(r.dump).map((u) => u.userId)).sort()).toEqual([...users].sort());

    await copyConfig(s.api.services, pool);
    await s.close();
    expect(await restoreWith(s.settings, log, pool, false)).toMatchObject({ failed: 0 });
    s = await served(at);
    await s.setClock('2026-03-04T08:00:00Z');
    expect(await histories()).toEqual(before);
    expect(await ranked()).toEqual(users.slice(0, 10).map((u) => `${u} 2`).sort());
  });
});
