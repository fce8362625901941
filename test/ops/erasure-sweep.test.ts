/**
 * Erasures a process left half done (src/engine/erasure/sweep.ts), on single Redis and on the
 * Cluster with the workers running: a pending record written as a request that died before the
 * partition's script leaves it, and one whose script ran but whose entry's id was never stored
 * (the entry then only in the archive, the log trimmed of it). The workers leave each alone for a
 * minute, then finish it: the user gone, the record done with its counts and without the user. A
 * record for a user the script does not find is deleted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/domain/ids.js';
import { eraseInPartition } from '../../src/engine/erasure/erase.js';
import { compareStreamIds } from '../../src/model/log.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('half-done erasures on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('are finished by the workers once a minute old', { timeout: 120_000 }, async () => {
    const s: TestServer = await startTestServer({ target, clock: 'manual', workers: true });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const { redis, keys } = s.api.services;
    const tag = s.prefix.slice(1);
    const never = `never-${tag}`;
    const ran = `ran-${tag}`;
    const other = `other-${tag}`;

    await s.setClock('2026-03-02T08:00:00Z');
    await s.metrics('lessons');
    for (const u of [never, ran, other]) await s.event('lessons', { id: u, name: `Name ${u}` }, 1);
    await s.workers!.testing.drainNow();

    // A request that died after writing its record, before the script.
    const at = Date.parse('2026-03-02T08:00:00Z');
    const half = async (userId: string): Promise<string> => {
      const id = uuidv7(at);
      const p = keys.forUser(DEFAULT_TENANT, userId).partition;
      await redis.hset(keys.erasure(id), { t: DEFAULT_TENANT, u: userId, p: String(p), s: 'pending', at: String(at) });
      await redis.sadd(keys.erasuresPending, id);
      return id;
    };
    const first = await half(never);
    // One for a user unknown to begin with (the request would have answered 404).
    const nobody = await half(`nobody-${tag}`);
    // One that died after the script: its entry archived, then trimmed from the log.
    const second = await half(ran);
    const erased = await eraseInPartition(s.api.services, DEFAULT_TENANT, ran, second, at);
    expect(erased).not.toBe(null);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      const cursors = await s.workers!.pool.query<{ last_id: string }>(
        'SELECT last_id FROM laurel_log_cursor WHERE prefix = $1 AND partition = $2', [s.prefix, keys.forUser(DEFAULT_TENANT, ran).partition],
      );
      return cursors.rows.some((r) => compareStreamIds(r.last_id, erased!.entryId) >= 0);
    }, { timeout: 20_000 }).toBe(true);
    expect(await redis.xdel(keys.partitionLog(keys.forUser(DEFAULT_TENANT, ran).partition), erased!.entryId)).toBe(1);

    // Younger than a minute: the workers leave them be (the request may still be under way).
    await s.workers!.testing.erasuresNow();
    expect((await s.request('GET', `/api/users/${never}`)).status).toBe(200);
    for (const id of [first, second]) {
      expect(await redis.hget(keys.erasure(id), 's')).toBe('pending');
      expect(await redis.hexists(keys.erasure(id), 'e')).toBe(0);
    }
    expect(await redis.hget(keys.erasure(nobody), 's')).toBe('pending');

    await s.setClock('2026-03-02T08:01:01Z');
    for (const id of [first, second]) {
      await expect.poll(async () => {
        await s.workers!.testing.drainNow();
        await s.workers!.testing.erasuresNow();
        return (await s.request('GET', `/admin/v1/erasures/${id}`)).body.status;
      }, { timeout: 20_000 }).toBe('done');
      const view = await s.request('GET', `/admin/v1/erasures/${id}`);
      expect(view.body.archivedEntries, view.text).toBeGreaterThan(0);
      expect(await redis.hexists(keys.erasure(id), 'u')).toBe(0);
      expect(await redis.sismember(keys.erasuresPending, id)).toBe(0);
    }
    expect((await s.request('GET', `/admin/v1/erasures/${first}`)).body.redisKeys).toBeGreaterThan(0);
    await expect.poll(async () => {
      await s.workers!.testing.erasuresNow();
      return redis.exists(keys.erasure(nobody));
    }, { timeout: 20_000 }).toBe(0);
    expect(await redis.sismember(keys.erasuresPending, nobody)).toBe(0);
    expect((await s.request('GET', `/admin/v1/erasures/${nobody}`)).status).toBe(404);
    for (const u of [never, ran]) expect((await s.request('GET', `/api/users/${u}`)).status).toBe(404);
    const { rows } = await s.workers!.pool.query(
      'SELECT 1 FROM laurel_events WHERE prefix = $1 AND user_id = ANY($2::text[])', [s.prefix, [never, ran]],
    );
    expect(rows).toEqual([]);
    expect((await s.request('GET', `/api/users/${other}`)).status).toBe(200);
  });
});
