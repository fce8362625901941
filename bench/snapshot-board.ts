/**
 * `npm run bench:snapshot-board`: the workers' snapshot of one uncapped board's run of
 * BENCH_SNAPSHOT_PARTICIPANTS (1,000,000) generated participants, read member by member in buckets
 * (src/redis/run-members.ts, what laurel does above LAUREL_SNAPSHOT_RUN_KEYS keys in a run's slot)
 * against the same run DUMPed whole in one transaction (what it does below): each snapshot's time,
 * its Redis CPU, the most memory the process taking it held, and what Postgres keeps; then an
 * incremental snapshot after BENCH_SNAPSHOT_CHANGED (1,000) participants moved, and a restore of
 * the board from the buckets, checked member by member on a sample.
 *
 * The api runs in this process (no load beside the snapshots: what a snapshot costs the event path
 * beside it is not measured), on a redis-server of the bench's own and a database of its own. The
 * participants are generated as bench/scale-board.ts generates them (ranking, members, sequences),
 * each with a history list of one entry (as lua/leaderboardRank-8.lua writes on entering), in
 * pipelined batches of 1,000.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { orderOf } from '../src/domain/leaderboards/runs.js';
import { startApi } from '../src/app/api.js';
import { restoreWith } from '../src/engine/installation-check.js';
import { takeSnapshot } from '../src/engine/durability/snapshot.js';
import { createLogger } from '../src/lib/log.js';
import { loadSettings, type Settings } from '../src/lib/settings.js';
import { connectPostgres as laurelPool } from '../src/postgres/pool.js';
import type { LeaderboardKeys } from '../src/redis/keys.js';
import { memberOf } from '../src/redis/rankings.js';
import { copyConfig } from '../workers/config-copy.js';
import { startOwnRedis } from './own-redis.js';
import { connectPostgres, createDatabase, dropDatabase } from './postgres.js';
import { stopAll } from './processes.js';
import { envNumber, log, round1 } from './scale-pass.js';
import { DEFAULT_DATABASE_URL, gitCommit, ROOT } from './variants.js';

const DEFAULT_PARTICIPANTS = 1_000_000;
const PARTICIPANTS = envNumber('BENCH_SNAPSHOT_PARTICIPANTS', DEFAULT_PARTICIPANTS);
const CHANGED = envNumber('BENCH_SNAPSHOT_CHANGED', 1000);
const WHOLE = process.env.BENCH_SNAPSHOT_WHOLE !== '0';
const BATCH = 1000;
const SAMPLE = 1000;
const ADMIN_KEY = 'bench-admin-key';
const BASE_MS = Date.parse('2026-01-01T00:00:00Z');
const idOf = (i: number): string => `snap-${i}`;
const valueOf = (i: number): number => 1 + ((Math.imul(i + 1, 2654435761) >>> 0) % 10_000);

/** Writes `n` participants as a placement leaves them, history included. */
async function generate(redis: Redis, keys: LeaderboardKeys, n: number): Promise<number> {
  const t0 = Date.now();
  for (let from = 0; from < n; from += BATCH) {
    const p = redis.pipeline();
    const zadd: (string | number)[] = [];
    const members: string[] = [];
    const sequences: string[] = [];
    for (let i = from; i < Math.min(n, from + BATCH); i++) {
      const id = idOf(i);
      const ms = BASE_MS + (i % 1_000_000) * 1000;
      const seq = `${ms}-${i % 1000}`;
      const member = memberOf(orderOf(ms, seq), id);
      zadd.push(valueOf(i), member);
      members.push(id, member);
      sequences.push(id, seq);
      p.lpush(keys.history(id), `${ms}|0|${i + 1}||${valueOf(i)}`);
    }
    p.zadd(keys.ranking, ...zadd).hset(keys.members, ...members).hset(keys.sequences, ...sequences).hincrby(keys.stats, 'entered', zadd.length / 2);
    await p.exec();
    if (from % 250_000 === 0 && from > 0) log(`  generated ${from.toLocaleString('en')} (${round1((Date.now() - t0) / 1000)} s)`);
  }
  return (Date.now() - t0) / 1000;
}

/** Redis's CPU seconds so far (user and system). */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const num = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return num('used_cpu_user') + num('used_cpu_sys');
}

/** The memory this process holds in JavaScript objects and buffers (bytes). */
function held(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** The bytes of the files under `dir` (a snapshot's users gathered on disk: src/lib/spill-set.ts). */
function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    try {
      total += entry.isDirectory() ? diskBytes(path) : statSync(path).size;
    } catch {
      // Removed since it was listed.
    }
  }
  return total;
}

/**
 * Runs `work`, answering its seconds, Redis's CPU seconds, the most memory this process held
 * meanwhile above what it held before (MB: JavaScript objects and buffers, garbage not yet
 * collected included, sampled every 20 ms; resident memory does not shrink back between the
 * phases, so it would not tell them apart), and the most its temporary files (`spill`, this
 * process's TMPDIR) held, sampled every 250 ms.
 */
async function measured<T>(
  redis: Redis, spill: string, work: () => Promise<T>,
): Promise<{ result: T; seconds: number; redisCpuS: number; peakHeldMb: number; peakDiskMb: number }> {
  global.gc?.();
  const before = held();
  let peak = before;
  let disk = 0;
  const timer = setInterval(() => { peak = Math.max(peak, held()); }, 20);
  const files = setInterval(() => { disk = Math.max(disk, diskBytes(spill)); }, 250);
  const cpu0 = await redisCpu(redis);
  const t0 = Date.now();
  try {
    const result = await work();
    const seconds = (Date.now() - t0) / 1000;
    peak = Math.max(peak, held());
    return {
      result, seconds: round1(seconds), redisCpuS: round1((await redisCpu(redis)) - cpu0), peakHeldMb: Math.round((peak - before) / 1e6),
      peakDiskMb: round1(disk / 1e6),
    };
  } finally {
    clearInterval(timer);
    clearInterval(files);
  }
}

async function main(): Promise<void> {
  const server = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  // The snapshot's temporary files in a directory of the bench's own, measured as they grow.
  const spill = mkdtempSync(join(tmpdir(), 'bench-snapshot-'));
  process.env.TMPDIR = spill;
  const admin = await connectPostgres(server);
  const own = await startOwnRedis();
  const redis = new Redis(own.url);
  const database = await createDatabase(admin, server);
  const out: Record<string, unknown> = { when: new Date().toISOString(), commit: gitCommit(), participants: PARTICIPANTS, changed: CHANGED };
  const settings: Settings = loadSettings({ REDIS_URL: own.url, REDIS_CLUSTER_NODES: '', DATABASE_URL: database.url, LAUREL_ADMIN_KEY: ADMIN_KEY, PORT: '0', HOST: '127.0.0.1', LAUREL_PREFIX: 'snap' });
  const quiet = createLogger('warn');
  let api = await startApi(settings, quiet);
  const pool = await laurelPool(settings);
  try {
    const url = `http://127.0.0.1:${api.port}`;
    const post = async (path: string, body: unknown) => {
      const r = await fetch(url + path, { method: 'POST', headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as { created: { id: string; start?: string }[] };
    };
    const metric = await post('/admin/v1/metrics', [{ key: 'lessons', name: 'Lessons' }]);
    const board = await post('/admin/v1/leaderboards', [{ name: 'Everyone', key: 'everyone', status: 'active', rankBy: 'metric', metricId: metric.created[0].id, maxParticipants: null }]);
    const lb = board.created[0];
    const keys = api.services.keys.leaderboard('_', lb.id, lb.start!, '');
    log(`generating ${PARTICIPANTS.toLocaleString('en')} participants`);
    out.generateS = round1(await generate(redis, keys, PARTICIPANTS));
    await copyConfig(api.services, pool);

    const bytes = async () => (await pool.query<{ rows: number; bytes: string }>(
      `SELECT count(*)::int AS rows, coalesce(sum(octet_length(dump)), 0)::bigint AS bytes FROM laurel_snapshot_keys WHERE key LIKE '%{lb:%'`,
    )).rows[0];

    log('a full snapshot, member by member');
    const byMembers = await measured(redis, spill, () => takeSnapshot(api.services, pool, true));
    const kept = await bytes();
    out.byMembers = { ...byMembers, result: undefined, keysRead: byMembers.result!.keys, rows: kept.rows, postgresMb: round1(Number(kept.bytes) / 1e6) };
    log(JSON.stringify(out.byMembers));

    log(`an incremental snapshot after ${CHANGED.toLocaleString('en')} participants moved`);
    const step = Math.floor(PARTICIPANTS / CHANGED);
    const p = redis.pipeline();
    for (let i = 0; i < PARTICIPANTS; i += step) p.zincrby(keys.ranking, 1, (await redis.hget(keys.members, idOf(i)))!);
    await p.exec();
    const incremental = await measured(redis, spill, () => takeSnapshot(api.services, pool));
    out.incremental = { ...incremental, result: undefined, rowsWritten: incremental.result!.written };
    log(JSON.stringify(out.incremental));

    // The sample the restore is checked on.
    const sample = Array.from({ length: SAMPLE }, (_, j) => idOf(Math.floor((j * PARTICIPANTS) / SAMPLE)));
    const state = async () => {
      const members = await redis.hmget(keys.members, ...sample);
      const scores = await Promise.all(members.map((m) => redis.zscore(keys.ranking, m!)));
      const histories = await Promise.all(sample.map((u) => redis.lrange(keys.history(u), 0, -1)));
      return JSON.stringify([members, scores, histories, await redis.zcard(keys.ranking)]);
    };
    const before = await state();
    await api.close();
    log('a restore from the buckets');
    const restore = await measured(redis, spill, () => restoreWith(settings, quiet, pool, true));
    if ((await state()) !== before) throw new Error('the restored board differs from the snapshot on the sample');
    out.restore = { ...restore, result: undefined };
    log(JSON.stringify(out.restore));

    if (WHOLE) {
      api = await startApi(settings, quiet);
      log('a full snapshot, the run DUMPed whole');
      api.services.settings.snapshotRunKeys = 2 ** 31;
      const whole = await measured(redis, spill, () => takeSnapshot(api.services, pool, true));
      const wholeKept = await bytes();
      out.whole = { ...whole, result: undefined, keysRead: whole.result!.keys, rows: wholeKept.rows, postgresMb: round1(Number(wholeKept.bytes) / 1e6) };
      log(JSON.stringify(out.whole));
    }
  } finally {
    await api.close().catch(() => undefined);
    await pool.end();
    redis.disconnect();
    await own.stop();
    await dropDatabase(admin, database.name);
    await admin.end();
    await stopAll();
    rmSync(spill, { recursive: true, force: true });
  }
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  // A run of another size beside the published one, not in its place.
  const name = PARTICIPANTS === DEFAULT_PARTICIPANTS ? 'snapshot-board' : `snapshot-board-${PARTICIPANTS}`;
  writeFileSync(`${ROOT}bench/results/${name}.json`, `${JSON.stringify(out, null, 2)}\n`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  await stopAll();
  process.exit(1);
});
