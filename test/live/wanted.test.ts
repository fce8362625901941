/**
 * The topics wanted, as a worker process knows them (src/engine/live/wanted.ts), on real Redis and
 * a real Cluster: the holds and rings of api processes written as src/engine/live/fanout.ts writes
 * them (src/engine/live/interest.ts). A topic stays wanted while any process holds it and is
 * dropped when the last lets it go; a ring older than the last one heard of its process and topic
 * (two rings of one process may cross on a Cluster) changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdOf, ringOf } from '../../src/engine/live/interest.js';
import { WantedTopics } from '../../src/engine/live/wanted.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(targets())('the topics wanted on %s', (target) => {
  let s: TestServer;
  let wanted: WantedTopics;
  const fresh: string[] = [];
  const dropped: string[] = [];
  const failures: unknown[] = [];

  beforeAll(async () => {
    s = await startTestServer({ target, workers: true });
    const { redis, keys } = s.workers!.services;
    wanted = new WantedTopics(redis, keys, (err) => failures.push(err), () => undefined, { fresh: (t) => fresh.push(t), dropped: (t) => dropped.push(t) });
    await wanted.start();
  });
  afterAll(async () => {
    wanted?.stop();
    await s?.close();
  });

  /** An api process's ring, after its hold is added to (taken up) or taken out of (let go) the set. */
  async function ring(take: boolean, holder: string, scoped: string, n: number): Promise<void> {
    const { redis, keys } = s.workers!.services;
    const hold = holdOf(holder, scoped);
    if (take) await redis.zadd(keys.live.wanted, Date.now() + 60_000, hold);
    else await redis.zrem(keys.live.wanted, hold);
    await redis.spublish(keys.live.interest, ringOf(take, n, Date.now(), hold));
  }

  it('keeps a topic while any process holds it, and drops it when the last one lets it go', async () => {
    await ring(true, 'api-a', '_|user:ann', 1);
    await ring(true, 'api-b', '_|user:ann', 1);
    await expect.poll(() => wanted.has('_|user:ann')).toBe(true);
    // Both holds known before one is let go: on a Cluster, rings published through two nodes may
    // arrive the other way round (the set, read, holds both).
    await wanted.reload();
    expect(fresh).toEqual(['_|user:ann']);

    await ring(false, 'api-a', '_|user:ann', 2);
    await sleep(300);
    await wanted.reload();
    expect(wanted.has('_|user:ann')).toBe(true);
    expect(dropped).toEqual([]);

    await ring(false, 'api-b', '_|user:ann', 2);
    await expect.poll(() => wanted.has('_|user:ann')).toBe(false);
    expect(dropped).toEqual(['_|user:ann']);
    expect(wanted.any()).toBe(false);
    // Read again, the set brings nothing back.
    await wanted.reload();
    expect(wanted.all()).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('ignores a ring older than the last one of its process and topic', async () => {
    // Let go (ring 2), then taken up again (ring 3): the rings arrive the other way round.
    await ring(true, 'api-c', '_|user:bo', 3);
    await expect.poll(() => wanted.has('_|user:bo')).toBe(true);
    const { redis, keys } = s.workers!.services;
    await redis.spublish(keys.live.interest, ringOf(false, 2, Date.now(), holdOf('api-c', '_|user:bo')));
    await sleep(300);
    expect(wanted.has('_|user:bo')).toBe(true);
    expect(dropped).not.toContain('_|user:bo');
    expect(fresh.filter((t) => t === '_|user:bo')).toHaveLength(1);
  });
});
