/**
 * `laurel restore` of a test server's installation into its emptied Redis: what the server wrote
 * archived (the log drained, the configuration copied), the server closed (its keys deleted), the
 * restore run, and a new server started on the same prefix and admin key (src/engine/durability/restore.ts).
 */
import { restoreWith } from '../../src/engine/installation-check.js';
import type { RestoreResult } from '../../src/engine/durability/restore.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { startTestServer, type TestServer } from './server.js';

const log = createLogger('silent');

/**
 * `s` must run with the workers; answers the restore's result and the new server (manual clock), on
 * the Redis `s` ran on (single or the Cluster). `fromLogAlone`: the snapshots' rows are deleted once
 * `s` is closed, so the restore replays the whole log (an installation whose snapshots were lost).
 */
export async function restoreServer(s: TestServer, fromLogAlone = false): Promise<{ result: RestoreResult; server: TestServer }> {
  if (s.workers === null) throw new Error('restoreServer: the server runs without workers');
  await s.workers.testing.drainNow();
  await s.workers.testing.configCopied(s.api.services.store.current.version);
  await s.close();
  const env = {
    LAUREL_PREFIX: s.prefix, LAUREL_ADMIN_KEY: s.adminKey,
    REDIS_CLUSTER_NODES: s.settings.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(','),
  };
  const pool = await connectPostgres(s.settings);
  let result: RestoreResult;
  try {
    if (fromLogAlone) {
      for (const table of ['laurel_snapshot_keys', 'laurel_snapshot_users', 'laurel_snapshots']) {
        await pool.query(`DELETE FROM ${table} WHERE prefix = $1`, [s.prefix]);
      }
    }
    result = await restoreWith(loadSettings({ ...process.env, ...env }), log, pool, false);
  } finally {
    await pool.end();
  }
  return { result, server: await startTestServer({ clock: 'manual', env }) };
}
