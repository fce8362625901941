/**
 * Queue `config-copy`: copies the whole configuration (Redis is the source of truth) into Postgres,
 * replacing what was there for this prefix, in one transaction. Runs on every configuration change
 * (one job per version, however many processes notice it) and every few minutes as a safety net.
 * What Redis holds is read through the configuration store (src/config/store.ts).
 */
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { CONFIG_COPY_QUEUE } from '../src/engine/jobs.js';
import { CONFIG_KINDS as KINDS } from '../src/model/entities.js';
import type { QueueSpec } from './queue.js';

export async function copyConfig(deps: Deps, pool: pg.Pool): Promise<{ version: number; rows: number }> {
  const { store, settings } = deps;
  const { version, entities: stored } = await store.stored();
  const client = await pool.connect();
  let rows = 0;
  try {
    await client.query('BEGIN');
    // Serialise copies of one prefix; an older version never overwrites a newer one.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`laurel-config:${settings.prefix}`]);
    const { rows: [latest] } = await client.query<{ v: string | null }>(
      'SELECT max(version) AS v FROM laurel_config WHERE prefix = $1', [settings.prefix],
    );
    if (latest.v !== null && Number(latest.v) > version) {
      await client.query('ROLLBACK');
      return { version: Number(latest.v), rows: 0 };
    }
    await client.query('DELETE FROM laurel_config WHERE prefix = $1', [settings.prefix]);
    for (const kind of KINDS) {
      for (const [id, body] of Object.entries(stored[kind])) {
        await client.query(
          'INSERT INTO laurel_config (prefix, kind, id, body, version) VALUES ($1, $2, $3, $4, $5)',
          [settings.prefix, kind, id, body, version],
        );
        rows++;
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  return { version, rows };
}

const JOB_OPTIONS = { removeOnComplete: 100, removeOnFail: 500, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };

export const configCopyQueue: QueueSpec<{
  /** Waits until the copy has caught up with configuration `version`. */
  configCopied(version: number, timeoutMs?: number): Promise<void>;
}> = {
  name: CONFIG_COPY_QUEUE,
  failure: 'config copy failed',
  schedules: () => [{ id: 'config-copy-periodic', every: 5 * 60_000, job: 'copy', opts: JOB_OPTIONS }],
  start({ svc, pool, log }) {
    let copiedVersion = -1;
    return {
      async process() {
        const r = await copyConfig(svc, pool);
        copiedVersion = Math.max(copiedVersion, r.version);
        return r;
      },
      async started(queue) {
        const enqueue = (version: number) =>
          queue.add('copy', { version }, { ...JOB_OPTIONS, jobId: `v${version}` })
            .catch((err: unknown) => log.warn({ err }, 'could not enqueue config copy'));
        svc.store.onChange((s) => { void enqueue(s.version); });
        await enqueue(svc.store.current.version);
      },
      testing: () => ({
        async configCopied(version: number, timeoutMs = 10_000) {
          const until = Date.now() + timeoutMs;
          while (copiedVersion < version) {
            if (Date.now() > until) throw new Error(`config copy did not reach version ${version} (at ${copiedVersion})`);
            await new Promise((r) => setTimeout(r, 25));
          }
        },
      }),
    };
  },
};
