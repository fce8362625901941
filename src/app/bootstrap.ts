/**
 * The first admin key: LAUREL_ADMIN_KEY is registered (by its hash) when set; otherwise, when no
 * admin key exists at all, one process creates a key and prints it once.
 */
import type { Logger } from 'pino';
import { externalKeyRecord, generateKey, hashKey } from '../http/auth.js';
import type { Clock } from '../lib/clock.js';
import type { RedisClient } from '../redis/client.js';
import type { Keys } from '../redis/keys.js';
import type { ConfigStore } from '../config/store.js';

export async function ensureAdminKey(
  store: ConfigStore, redis: RedisClient, keys: Keys, clock: Clock, log: Logger, adminKey: string | null,
  print: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Promise<void> {
  const now = new Date(clock.now()).toISOString();
  if (adminKey !== null) {
    if (!store.current.apiKeysByHash.has(hashKey(adminKey))) {
      await store.put('apikeys', 'create', externalKeyRecord(adminKey, 'LAUREL_ADMIN_KEY', now));
    }
    return;
  }
  const hasAdmin = store.current.list('apikeys').some((k) => k.kind === 'admin' && k.tenantId === null);
  if (hasAdmin) return;
  // Only one process creates it, even when several start at once.
  const won = await redis.set(keys.bootstrap, String(process.pid), 'NX');
  if (won !== 'OK') {
    log.info('another process is creating the first admin key');
    return;
  }
  const fresh = generateKey('admin', 'first admin key', null, now);
  await store.put('apikeys', 'create', fresh.record);
  print(
    '\n  laurel created the first admin key. It is shown this once; keep it safe:\n\n' +
      `    ${fresh.key}\n\n` +
      '  Use it as the X-API-KEY header for /admin/v1 calls, or set LAUREL_ADMIN_KEY.\n',
  );
}
