/**
 * An erased user's live topics ([api.md](../../docs/api.md#erasing-a-user)), on single Redis and on
 * the Cluster, with the workers: the api process whose socket still holds the user's topic, and
 * whose other socket let another erased user's topic go a moment before (the process keeps it
 * `LAUREL_LIVE_LINGER`), drops both on the erasure's notice: saying again what it holds (its
 * refresh, every 30 s) writes nothing naming either user back into Redis. A socket that takes the
 * topic up again afterwards (a new user of the same id) has it wanted again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { erasureDone } from '../support/admin.js';
import { openLive, liveUrl } from '../support/live-client.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { redisTraces } from '../support/traces.js';

describe.each(targets())('an erased user\'s live topics on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('are dropped by the api process that holds them, and wanted again when taken up anew', { timeout: 60_000 }, async () => {
    const s: TestServer = await startTestServer({ target, workers: true, env: { LAUREL_LIVE_LINGER: '120' } });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const tag = s.prefix.slice(1);
    const held = `held-${tag}`;
    const gone = `gone-${tag}`;
    await s.metrics('lessons');
    await s.event('lessons', held, 1);
    await s.event('lessons', gone, 1);
    const live = await openLive(liveUrl(s.url, s.adminKey));
    cleanups.push(() => live.close());
    await live.subscribe([`user:${held}`]);
    const left = await openLive(liveUrl(s.url, s.adminKey));
    await left.subscribe([`user:${gone}`]);
    await left.close();
    const { redis, keys } = s.api.services;
    const holds = async () => (await redis.zrange(keys.live.wanted, 0, -1)).filter((h) => h.includes(held) || h.includes(gone));
    await expect.poll(holds).toHaveLength(2);

    for (const user of [held, gone]) {
      const erase = await s.request('DELETE', `/admin/v1/users/${user}`);
      expect(erase.status, erase.text).toBe(202);
      await erasureDone(s, erase.body.erasureId as string);
    }
    // Once the notice is heard, a refresh writes nothing of them again (before it, one may have: the
    // notice takes that out too).
    await expect.poll(async () => {
      await s.api.fanout.refresh();
      return redisTraces(redis, s.prefix, [held, gone]);
    }).toEqual([]);
    await s.api.fanout.refresh();
    expect(await redisTraces(redis, s.prefix, [held, gone])).toEqual([]);

    // A new user of the same id, followed by a socket of its own: wanted again.
    await s.event('lessons', held, 2);
    const again = await openLive(liveUrl(s.url, s.adminKey));
    cleanups.push(() => again.close());
    await again.subscribe([`user:${held}`]);
    expect(await holds()).toEqual([expect.stringContaining(`|user:${held}`)]);
    await s.api.fanout.refresh();
    expect(await holds()).toHaveLength(1);
  });
});
