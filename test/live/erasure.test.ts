/**
 * An erased user's live topics ([api.md](../../docs/api.md#erasing-a-user)), on single Redis and on
 * the Cluster, with the workers: the api process whose socket still holds the user's topic, and
 * whose other socket let another erased user's topic go a moment before (the process keeps it
 * `LAUREL_LIVE_LINGER`), drops both on the erasure's notice: saying again what it holds (its
 * refresh, every 30 s) writes nothing naming either user back into Redis. A socket that takes the
 * topic up again afterwards (a new user of the same id) has it wanted again.
 */
import { describe, expect, it } from 'vitest';
import { erasureDone } from '../support/admin.js';
import { lingeringLive } from '../support/lingering-live.js';
import { openLive, liveUrl } from '../support/live-client.js';
import { targets } from '../support/server.js';
import { redisTraces } from '../support/traces.js';

describe.each(targets())('an erased user\'s live topics on %s', (target) => {
  const live = lingeringLive(target);

  it('are dropped by the api process that holds them, and wanted again when taken up anew', { timeout: 60_000 }, async () => {
    const { s, held, gone } = await live.start();
    await s.metrics('lessons');
    await s.event('lessons', held, 1);
    await s.event('lessons', gone, 1);
    await live.hold(s, [`user:${held}`], [`user:${gone}`]);
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
    live.cleanups.push(() => again.close());
    await again.subscribe([`user:${held}`]);
    expect(await holds()).toEqual([expect.stringContaining(`|user:${held}`)]);
    await s.api.fanout.refresh();
    expect(await holds()).toHaveLength(1);
  });
});
