/**
 * Process settings, read once from the environment. Every variable is documented in docs/operations.md
 * ("Configuration"); the defaults work on a fresh machine with local Redis and Postgres.
 */
import { LaurelError } from './errors.js';
export interface Settings {
  port: number;
  host: string;
  /** Single Redis URL; ignored when `redisClusterNodes` is set. */
  redisUrl: string;
  /** `host:port` seeds of a Redis Cluster, from REDIS_CLUSTER_NODES (comma-separated). */
  redisClusterNodes: { host: string; port: number }[];
  databaseUrl: string;
  /** Whether laurel creates the database when it is missing: DATABASE_URL unset (its own database, `laurel`). */
  databaseCreate: boolean;
  adminKey: string | null;
  /** Prefix of every Redis key and of the Postgres tables' rows scope. */
  prefix: string;
  logLevel: string;
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  /** Largest accepted body of a history import (POST /admin/v1/import) in bytes. */
  importBodyLimit: number;
  clock: 'system' | 'manual';
  /** Number of user partitions (hash slots of user state). Fixed at install time. */
  partitions: number;
  /** Idempotency window in milliseconds; 0 keeps keys forever (the spec's default). */
  idempotencyWindowMs: number;
  /** How long before its arrival an event's `occurredAt` may be (LAUREL_EVENT_TIME_WINDOW, ms). */
  eventTimeWindowMs: number;
  /** The most batch event items waiting for the workers; a batch past it is refused (503). */
  batchMaxWaiting: number;
  /** How often an api process says it is alive (the log drainer replays phase 2 of dead ones). */
  heartbeatMs: number;
  /** How often the workers take a snapshot of Redis into Postgres (ms). */
  snapshotIntervalMs: number;
  /**
   * Keys in a run's slot above which a snapshot reads a run of an uncapped board member by member
   * (src/redis/run-members.ts); 0: every such run.
   */
  snapshotRunKeys: number;
  /** Bytes a live updates socket may let wait before it is closed (LAUREL_LIVE_MAX_BACKPRESSURE). */
  liveMaxBackpressure: number;
  /** Seconds a live updates socket may stay silent (it is pinged before) before it is closed (LAUREL_LIVE_IDLE_TIMEOUT). */
  liveIdleTimeoutS: number;
  /**
   * Seconds a live topic is still published after the last socket of an api process let it go: a
   * client that reconnects within them resumes with `since` without a `resync` (LAUREL_LIVE_LINGER).
   */
  liveLingerS: number;
  /** Restore an empty Redis from Postgres at start instead of refusing to serve it. */
  autoRestore: boolean;
  /**
   * How many api processes `laurel start` and `laurel api` run on the port; null: the command's
   * default (src/app/processes.ts, apiProcessCount).
   */
  apiProcesses: number | null;
  /** Where emails go out (`smtp://user:pass@host:port`, `smtps://...`); null: emails off. */
  smtpUrl: string | null;
  /** The sender of emails when the notification settings name none. */
  emailFrom: string | null;
  /** Requests a second per key of the account (admin, application), from LAUREL_RATE_LIMIT; null: no limit. */
  rateLimit: RateLimit | null;
  /**
   * Requests a second per key scoped to a user, from LAUREL_USER_KEY_RATE_LIMIT (by default
   * LAUREL_RATE_LIMIT's when that is set, else DEFAULT_USER_KEY_RATE_LIMIT); null: no limit (`off`).
   */
  userKeyRateLimit: RateLimit | null;
  /** Webhooks may go to loopback and private addresses (LAUREL_WEBHOOKS_ALLOW_PRIVATE=1). */
  webhooksAllowPrivate: boolean;
  /** Days the audit log keeps an Admin API write (LAUREL_AUDIT_RETENTION_DAYS); the workers delete older entries. */
  auditRetentionDays: number;
  /** Days the archived event log keeps an entry (LAUREL_LOG_RETENTION_DAYS); null: kept for good. */
  logRetentionDays: number | null;
  /** Whether requests are observed and process metrics collected (LAUREL_METRICS, on unless `0`). */
  metrics: boolean;
  /** The workers' health endpoint's port (LAUREL_WORKERS_PORT; `0` picks one); null: none. */
  workersPort: number | null;
  /** Push providers (docs/notifications.md, "Setting up push"); null: that provider is off. */
  apns: { keyFile: string; keyId: string; teamId: string; topic: string; url: string } | null;
  fcm: { serviceAccountFile: string; url: string; tokenUrl: string | null } | null;
  expo: { url: string; accessToken: string | null } | null;
}

/** A rate limit per API key: requests a second, and how many may come at once. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export class SettingsError extends LaurelError {
  constructor(message: string) { super('invalid_setting', message); }
}

/** laurel's own database on the machine's Postgres, created when missing (src/postgres/database.ts). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/laurel';

function int(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  // Digits only: Number() would take ' 5', '0x10' or '1e2' too.
  const n = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new SettingsError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

/** Parses sizes such as `1048576`, `512kb`, `1mb`. */
export function parseSize(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+)\s*(b|kb|k|mb|m)?$/i.exec(raw.trim());
  if (!m) throw new SettingsError(`${name} must be a size such as 1048576, 512kb or 1mb, got "${raw}"`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = unit.startsWith('m') ? 1024 * 1024 : unit.startsWith('k') ? 1024 : 1;
  const n = Number(m[1]) * factor;
  if (n < 1024 || n > 64 * 1024 * 1024) throw new SettingsError(`${name} must be between 1kb and 64mb`);
  return n;
}

/** Parses durations such as `300` (seconds), `90s`, `5m`, `1h`, `7d`, in ms. */
export function parseDuration(name: string, raw: string | undefined, fallbackMs: number, minMs: number): number {
  if (raw === undefined || raw === '') return fallbackMs;
  const m = /^(\d+)\s*(s|m|h|d)?$/i.exec(raw.trim());
  if (!m) throw new SettingsError(`${name} must be a duration such as 300, 90s, 5m, 1h or 7d, got "${raw}"`);
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
  if (ms < minMs || ms > 7 * 86_400_000) throw new SettingsError(`${name} must be from ${minMs / 1000} s to 7 days, got "${raw}"`);
  return ms;
}

const RATE_MAX = 1_000_000;

/**
 * The limit of a key scoped to a user when neither LAUREL_USER_KEY_RATE_LIMIT nor LAUREL_RATE_LIMIT
 * is set: 20 requests a second, 200 at once (docs/operations.md, "Rate limits", says why).
 */
export const DEFAULT_USER_KEY_RATE_LIMIT: RateLimit = { perSecond: 20, burst: 200 };

/**
 * LAUREL_USER_KEY_RATE_LIMIT: a limit as parseRateLimit reads one, or `off` for none; unset or
 * empty, the account's keys' limit (`account`) when there is one, else DEFAULT_USER_KEY_RATE_LIMIT.
 */
export function parseUserKeyRateLimit(raw: string | undefined, account: RateLimit | null): RateLimit | null {
  if (raw === undefined || raw.trim() === '') return account ?? DEFAULT_USER_KEY_RATE_LIMIT;
  if (raw.trim() === 'off') return null;
  try {
    return parseRateLimit('LAUREL_USER_KEY_RATE_LIMIT', raw);
  } catch (err) {
    throw new SettingsError(`${(err as Error).message}; or off for no limit`);
  }
}

/**
 * `<requests per second>[:<burst>]`, such as `100:200` or `0.5`: the rate a positive number (a
 * fraction allows fewer than one a second), the burst a whole number of requests that may come at
 * once, by default the rate's (rounded up). Unset or empty: no limit.
 */
export function parseRateLimit(name: string, raw: string | undefined): RateLimit | null {
  if (raw === undefined || raw.trim() === '') return null;
  const m = /^(\d+(?:\.\d+)?)(?::(\d+))?$/.exec(raw.trim());
  const perSecond = m ? Number(m[1]) : NaN;
  const burst = m ? (m[2] === undefined ? Math.max(1, Math.ceil(perSecond)) : Number(m[2])) : NaN;
  if (!(perSecond > 0 && perSecond <= RATE_MAX) || !(burst >= 1 && burst <= RATE_MAX)) {
    throw new SettingsError(
      `${name} must be <requests per second>[:<burst>] (for example 100:200 or 0.5), the rate above 0 and the burst ` +
      `a whole number from 1, each at most ${RATE_MAX}, got "${raw}"`,
    );
  }
  return { perSecond, burst };
}

function clusterNodes(raw: string | undefined): { host: string; port: number }[] {
  if (!raw) return [];
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((hp) => {
    const i = hp.lastIndexOf(':');
    const port = Number(hp.slice(i + 1));
    if (i <= 0 || !Number.isInteger(port)) {
      throw new SettingsError(`REDIS_CLUSTER_NODES must list host:port pairs, got "${hp}"`);
    }
    return { host: hp.slice(0, i), port };
  });
}

/** APNs with token auth: all four of the key file, key id, team id and topic, or none. */
function apnsSettings(env: NodeJS.ProcessEnv): Settings['apns'] {
  const names = ['LAUREL_APNS_KEY_FILE', 'LAUREL_APNS_KEY_ID', 'LAUREL_APNS_TEAM_ID', 'LAUREL_APNS_TOPIC'] as const;
  const set = names.filter((n) => env[n]);
  if (set.length === 0) return null;
  if (set.length < names.length) {
    throw new SettingsError(`APNs needs ${names.join(', ')}; missing ${names.filter((n) => !env[n]).join(', ')}`);
  }
  return {
    keyFile: env.LAUREL_APNS_KEY_FILE!, keyId: env.LAUREL_APNS_KEY_ID!, teamId: env.LAUREL_APNS_TEAM_ID!, topic: env.LAUREL_APNS_TOPIC!,
    url: env.LAUREL_APNS_URL || 'https://api.push.apple.com',
  };
}

function smtpUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError('LAUREL_SMTP_URL must be a URL such as smtp://user:pass@host:587 or smtps://user:pass@host:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new SettingsError(`LAUREL_SMTP_URL must start with smtp:// or smtps://, got "${url.protocol}//"`);
  }
  return raw;
}

/** LAUREL_METRICS: `0` turns the recording of metrics off; `1` or unset leaves it on. */
function metricsSetting(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === '1') return true;
  if (raw === '0') return false;
  throw new SettingsError(`LAUREL_METRICS must be 0 (metrics off) or 1, got "${raw}"`);
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const prefix = env.LAUREL_PREFIX || 'laurel';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
    throw new SettingsError('LAUREL_PREFIX may hold letters, digits, "_", ".", ":" and "-" only (no braces)');
  }
  const clock = env.LAUREL_CLOCK || 'system';
  if (clock !== 'system' && clock !== 'manual') {
    throw new SettingsError(`LAUREL_CLOCK must be "system" or "manual", got "${clock}"`);
  }
  return {
    port: int('PORT', env.PORT, 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
    redisClusterNodes: clusterNodes(env.REDIS_CLUSTER_NODES),
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    databaseCreate: !env.DATABASE_URL,
    adminKey: env.LAUREL_ADMIN_KEY || null,
    prefix,
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimit: parseSize('BODY_LIMIT', env.BODY_LIMIT, 1024 * 1024),
    importBodyLimit: parseSize('LAUREL_IMPORT_BODY_LIMIT', env.LAUREL_IMPORT_BODY_LIMIT, 8 * 1024 * 1024),
    clock,
    partitions: int('LAUREL_PARTITIONS', env.LAUREL_PARTITIONS, 256, 1, 16384),
    idempotencyWindowMs: int('LAUREL_IDEMPOTENCY_WINDOW', env.LAUREL_IDEMPOTENCY_WINDOW, 0, 0, 2 ** 40) * 1000,
    eventTimeWindowMs: parseDuration('LAUREL_EVENT_TIME_WINDOW', env.LAUREL_EVENT_TIME_WINDOW, 7 * 86_400_000, 0),
    batchMaxWaiting: int('LAUREL_BATCH_MAX_WAITING', env.LAUREL_BATCH_MAX_WAITING, 1_000_000, 1, 2 ** 31),
    heartbeatMs: int('LAUREL_HEARTBEAT_MS', env.LAUREL_HEARTBEAT_MS, 1000, 100, 3_600_000),
    liveMaxBackpressure: parseSize('LAUREL_LIVE_MAX_BACKPRESSURE', env.LAUREL_LIVE_MAX_BACKPRESSURE, 256 * 1024),
    liveIdleTimeoutS: int('LAUREL_LIVE_IDLE_TIMEOUT', env.LAUREL_LIVE_IDLE_TIMEOUT, 120, 8, 960),
    liveLingerS: int('LAUREL_LIVE_LINGER', env.LAUREL_LIVE_LINGER, 120, 0, 600),
    snapshotIntervalMs: parseDuration('LAUREL_SNAPSHOT_INTERVAL', env.LAUREL_SNAPSHOT_INTERVAL, 5 * 60_000, 1000),
    snapshotRunKeys: int('LAUREL_SNAPSHOT_RUN_KEYS', env.LAUREL_SNAPSHOT_RUN_KEYS, 20_000, 0, 2 ** 31),
    autoRestore: env.LAUREL_AUTO_RESTORE === '1' || env.LAUREL_AUTO_RESTORE === 'true',
    metrics: metricsSetting(env.LAUREL_METRICS),
    auditRetentionDays: int('LAUREL_AUDIT_RETENTION_DAYS', env.LAUREL_AUDIT_RETENTION_DAYS, 365, 1, 36_500),
    logRetentionDays: env.LAUREL_LOG_RETENTION_DAYS === undefined || env.LAUREL_LOG_RETENTION_DAYS === ''
      ? null : int('LAUREL_LOG_RETENTION_DAYS', env.LAUREL_LOG_RETENTION_DAYS, 0, 1, 36_500),
    workersPort: env.LAUREL_WORKERS_PORT === undefined || env.LAUREL_WORKERS_PORT === '' ? null : int('LAUREL_WORKERS_PORT', env.LAUREL_WORKERS_PORT, 0, 0, 65535),
    apiProcesses: env.LAUREL_API_PROCESSES === undefined ? null : int('LAUREL_API_PROCESSES', env.LAUREL_API_PROCESSES, 1, 1, 256),
    smtpUrl: smtpUrl(env.LAUREL_SMTP_URL),
    emailFrom: env.LAUREL_EMAIL_FROM || null,
    rateLimit: parseRateLimit('LAUREL_RATE_LIMIT', env.LAUREL_RATE_LIMIT),
    userKeyRateLimit: parseUserKeyRateLimit(env.LAUREL_USER_KEY_RATE_LIMIT, parseRateLimit('LAUREL_RATE_LIMIT', env.LAUREL_RATE_LIMIT)),
    webhooksAllowPrivate: env.LAUREL_WEBHOOKS_ALLOW_PRIVATE === '1' || env.LAUREL_WEBHOOKS_ALLOW_PRIVATE === 'true',
    apns: apnsSettings(env),
    fcm: env.LAUREL_FCM_SERVICE_ACCOUNT_FILE
      ? { serviceAccountFile: env.LAUREL_FCM_SERVICE_ACCOUNT_FILE, url: env.LAUREL_FCM_URL || 'https://fcm.googleapis.com', tokenUrl: env.LAUREL_FCM_TOKEN_URL || null }
      : null,
    expo: env.LAUREL_EXPO_URL || env.LAUREL_EXPO_ACCESS_TOKEN
      ? { url: env.LAUREL_EXPO_URL || 'https://exp.host/--/api/v2/push/send', accessToken: env.LAUREL_EXPO_ACCESS_TOKEN || null }
      : null,
  };
}
