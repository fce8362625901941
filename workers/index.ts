/**
 * The workers process: BullMQ queues for everything off the request path. Each queue processor
 * lives in its own file; this entry point wires them and shuts them down in order.
 */
import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type pg from 'pg';
import { connect, type Services } from '../src/api.js';
import { createClient } from '../src/redis/client.js';
import type { Settings } from '../src/settings.js';
import { connectPostgres } from '../src/store/postgres.js';
import { CONFIG_COPY_QUEUE, copyConfig } from './config-copy.js';

export interface WorkersHandle {
  services: Services;
  pool: pg.Pool;
  /** Waits until the configuration copy has caught up with the current version (for tests). */
  configCopied(version: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWorkers(settings: Settings, log: Logger, services?: Services): Promise<WorkersHandle> {
  const svc = services ?? (await connect(settings, log));
  const pool = await connectPostgres(settings);
  const connection = createClient(settings, { maxRetriesPerRequest: null, connectionName: 'laurel-workers' });
  connection.on('error', (err) => log.warn({ err: err.message }, 'workers redis connection error'));
  const prefix = svc.keys.queuePrefix;
  const wlog = log.child({ component: 'workers' });

  let copiedVersion = -1;
  const configQueue = new Queue(CONFIG_COPY_QUEUE, { connection, prefix });
  const configWorker = new Worker(CONFIG_COPY_QUEUE, async () => {
    const r = await copyConfig(svc, pool);
    copiedVersion = Math.max(copiedVersion, r.version);
    return r;
  }, { connection, prefix, concurrency: 1 });
  configWorker.on('failed', (job, err) => wlog.error({ err, job: job?.id }, 'config copy failed'));

  const jobOptions = { removeOnComplete: 100, removeOnFail: 500, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };
  const enqueueCopy = (version: number) =>
    configQueue.add('copy', { version }, { ...jobOptions, jobId: `v${version}` })
      .catch((err: unknown) => wlog.warn({ err }, 'could not enqueue config copy'));
  svc.store.onChange((s) => { void enqueueCopy(s.version); });
  await enqueueCopy(svc.store.current.version);
  await configQueue.upsertJobScheduler('config-copy-periodic', { every: 5 * 60_000 }, { name: 'copy', opts: jobOptions });

  wlog.info({ queues: [CONFIG_COPY_QUEUE] }, 'laurel workers running');
  return {
    services: svc,
    pool,
    async configCopied(version, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (copiedVersion < version) {
        if (Date.now() > until) throw new Error(`config copy did not reach version ${version} (at ${copiedVersion})`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      await configWorker.close();
      await configQueue.close();
      await connection.quit().catch(() => connection.disconnect());
      await pool.end();
      if (!services) await svc.close();
    },
  };
}
