/**
 * The workers beside an api in its process (`laurel start` with one api process) send their
 * commands on a Redis connection of their own (src/engine/services.ts withOwnRedis), not on the
 * api's, which answers in order: they drain the log on it, and their stop closes it and leaves the
 * api's serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers } from '../../workers/index.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

describe('the workers beside an api', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await s.metrics('lessons');
  });
  afterAll(async () => {
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
    await s?.close();
  });

  it('drain on a connection of their own, and close only that one', async () => {
    const api = s.api.services.redis;
    const workers = await startWorkers(s.settings, createLogger('silent'), s.api.services);
    try {
      const own = workers.services.redis;
      expect(own).not.toBe(api);
      expect(await own.client('GETNAME')).toBe('laurel-workers-data');
      expect(await api.client('GETNAME')).toBe('laurel');
      await s.event('lessons', 'kit', 1);
      const archived = async () => {
        await workers.testing.drainNow();
        return (await workers.pool.query<{ n: number }>('SELECT coalesce(sum(entries), 0)::int AS n FROM laurel_log WHERE prefix = $1', [s.prefix])).rows[0].n;
      };
      await expect.poll(archived).toBeGreaterThan(0);
    } finally {
      await workers.close();
    }
    // Quit: the socket's close ends it a moment after the answer.
    await expect.poll(() => workers.services.redis.status).toBe('end');
    expect(api.status).toBe('ready');
    await s.event('lessons', 'kit', 1); // answered 201 on the api's connection
  });
});
