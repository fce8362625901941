/**
 * Workers' passes finishing one erasure together (src/engine/erasure/pass.ts,
 * lua/erasureDone-1.lua), on single Redis and on the Cluster with the workers running: while
 * another pass is on the erasure, the workers' passes add their counts but leave it pending; once
 * the other pass leaves, the last one out marks it done with every pass's counts. A pass noted longer ago than a
 * pass may take (its process died) holds no erasure back.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/domain/ids.js';
import { eraseInPartition } from '../../src/engine/erasure/erase.js';
import { PASS_LIMIT_MS } from '../../src/engine/erasure/pass.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import * as erasurePasses from '../../src/redis/scripts/erasurePasses.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('passes on one erasure on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('mark it done once the last has added its counts', { timeout: 120_000 }, async () => {
    const s: TestServer = await startTestServer({ target, clock: 'manual', workers: true });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const { redis, keys } = s.api.services;
    const tag = s.prefix.slice(1);
    const racing = `racing-${tag}`;
    const orphan = `orphan-${tag}`;

    await s.setClock('2026-03-02T08:00:00Z');
    const now = Date.parse('2026-03-02T08:00:00Z');
    await s.metrics('lessons');
    for (const u of [racing, orphan]) {
      await s.event('lessons', { id: u, name: `Name ${u}` }, 1);
      await s.event('lessons', u, 2);
    }
    await s.workers!.testing.drainNow();

    // An erasure as its request leaves it, with a pass of another worker on it from the start.
    const erasure = async (userId: string, passAt: number): Promise<string> => {
      const id = uuidv7(now);
      const record = keys.erasure(id);
      const p = keys.forUser(DEFAULT_TENANT, userId).partition;
      await redis.hset(record, { t: DEFAULT_TENANT, u: userId, p: String(p), s: 'pending', at: String(now) });
      expect(await erasurePasses.join(redis, record, 'other', passAt)).toBe(true);
      const erased = await eraseInPartition(s.api.services, DEFAULT_TENANT, userId, id, now);
      expect(erased).not.toBe(null);
      await redis.hset(record, { e: erased!.entryId, rk: String(erased!.deleted) });
      await redis.sadd(keys.erasuresPending, id);
      return id;
    };

    const first = await erasure(racing, now);
    const record = keys.erasure(first);
    // A pass of the workers has done its part once its counts are in; the drain's scheduled passes
    // run too: read when none of theirs is on it.
    const passes = (h: Record<string, string>) => Object.keys(h).filter((f) => f.startsWith('w:'));
    let mine: Record<string, string> = {};
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      mine = await redis.hgetall(record);
      return Number(mine.pa) > 0 && passes(mine).length === 1;
    }, { timeout: 20_000 }).toBe(true);
    expect(mine.s).toBe('pending');
    expect(mine.u).toBe(racing);
    expect(passes(mine)).toEqual(['w:other']);
    expect(await redis.sismember(keys.erasuresPending, first)).toBe(1);
    expect((await s.request('GET', `/admin/v1/erasures/${first}`)).body.status).toBe('pending');
    // Another pass of the workers meanwhile leaves it pending: it is not the last.
    await s.workers!.testing.erasuresNow();
    expect(await redis.hget(record, 's')).toBe('pending');

    // The other pass leaves with what it removed: once the last pass is out, done, every pass's
    // counts in (the workers' later passes found nothing left).
    const counts = { redisKeys: 1, redisMembers: 2, archivedEntries: 3, postgresRows: 4 };
    await erasurePasses.leave(redis, record, 'other', now, PASS_LIMIT_MS, counts);
    await expect.poll(async () => (await s.request('GET', `/admin/v1/erasures/${first}`)).body.status, { timeout: 20_000 }).toBe('done');
    const done = await s.request('GET', `/admin/v1/erasures/${first}`);
    expect(done.body).toMatchObject({
      finishedAt: '2026-03-02T08:00:00.000Z',
      redisKeys: Number(mine.rk) + 1,
      redisMembers: Number(mine.rm) + 2,
      archivedEntries: Number(mine.pa) + 3,
      postgresRows: Number(mine.pr) + 4,
    });
    expect(await redis.hexists(record, 'u')).toBe(0);
    await s.workers!.testing.erasuresNow();
    expect(await redis.sismember(keys.erasuresPending, first)).toBe(0);
    expect(passes(await redis.hgetall(record))).toEqual([]);
    // A pass that joins a done erasure adds nothing.
    expect(await erasurePasses.join(redis, record, 'late', now)).toBe(false);

    // A pass noted longer ago than a pass may take stopped on its way: it holds nothing back.
    const second = await erasure(orphan, now - PASS_LIMIT_MS - 1);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return (await s.request('GET', `/admin/v1/erasures/${second}`)).body.status;
    }, { timeout: 20_000 }).toBe('done');
    const orphaned = await redis.hgetall(keys.erasure(second));
    expect(passes(orphaned)).toEqual([]);
    expect(orphaned.u).toBe(undefined);
    expect(Number(orphaned.pa)).toBeGreaterThan(0);
  });
});
