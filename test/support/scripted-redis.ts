/**
 * The machine's Redis with laurel's scripts defined, for the tests that call the scripts directly
 * (test/lua/): a key prefix of the file's own, whose keys are deleted afterwards.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { loadSettings } from '../../src/lib/settings.js';
import { Keys } from '../../src/redis/keys.js';
import { defineScripts, loadScripts } from '../../src/redis/scripts.js';
import { deletePrefix } from './server.js';

/** Keys of a prefix of its own (16 partitions), and the client, connected before the file's tests run. */
export function scriptedRedis(): { keys: Keys; redis: () => Redis } {
  const settings = loadSettings();
  const prefix = `t${randomBytes(5).toString('hex')}`;
  let redis: Redis | null = null;
  beforeAll(() => {
    redis = new Redis(settings.redisUrl);
    defineScripts(redis, loadScripts());
  });
  afterAll(async () => {
    redis?.disconnect();
    await deletePrefix(settings, prefix);
  });
  return {
    keys: new Keys(prefix, 16),
    redis: () => {
      if (redis === null) throw new Error('scriptedRedis: used before the tests ran');
      return redis;
    },
  };
}
