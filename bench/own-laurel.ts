/**
 * What a bench that starts a laurel of its own needs before it starts it (bench/batch-gather.ts,
 * bench/analytics.ts): a fresh database, a key prefix and an admin key of its own, a free port on
 * loopback, and the environment that names them (with the bench's own settings).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createDatabase } from './postgres.js';
import { freePort } from './processes.js';

export interface OwnLaurel {
  database: { name: string; url: string };
  prefix: string;
  /** The admin key. */
  key: string;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  env: NodeJS.ProcessEnv;
}

export async function ownLaurel(admin: pg.Client, serverUrl: string, redisUrl: string, settings: NodeJS.ProcessEnv): Promise<OwnLaurel> {
  const database = await createDatabase(admin, serverUrl);
  const prefix = `bench${randomBytes(5).toString('hex')}`;
  const key = `bench-admin-${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: redisUrl,
    DATABASE_URL: database.url, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: key, LOG_LEVEL: 'warn', ...settings,
  };
  return { database, prefix, key, url: `http://127.0.0.1:${port}`, env };
}
