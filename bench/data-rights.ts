/**
 * What the data rights and the audit log cost (`npm run bench:data-rights`), in one process, with
 * laurel's api started in it (src/app/api.ts) against a redis-server and a Postgres database of the
 * bench's own (both gone after), and the workers' parts called directly, as the workers call them:
 *
 * - **retention**: the log drain (src/engine/log-drain/drain.ts `LogDrainer`) archives a backlog of
 *   BENCH_EVENTS events, sent through the api beforehand, three times: alone, while the retention's
 *   bulk delete (src/postgres/log-retention.ts) removes BENCH_OLD_ROWS archived batches older than
 *   the retention (inserted by SQL, a line each), and alone again. Answers each drain's entries a
 *   second, and the delete's rows a second.
 * - **audit**: BENCH_WRITES Admin writes (`PATCH /admin/v1/metrics`, a metric renamed),
 *   BENCH_IN_FLIGHT at a time, from a client in a process of its own (bench/admin-write-client.ts),
 *   in BENCH_ROUNDS rounds taken in pairs, the audit log's recorder (src/engine/audit/record.ts)
 *   doing its work in one round of each pair and nothing in the other (its `record` replaced in
 *   this process: laurel has no setting that turns the audit log off), each pair's order the other
 *   way round from the last's. Answers each round's writes a second, latency (p50, p99), the
 *   server process's CPU a write and the load average, and each pair's ratios.
 * - **erasure**: a user erased (`DELETE /admin/v1/users/{id}`, then the log drained and the
 *   workers' erasure pass, src/engine/erasure/pass.ts) in a Redis that holds the installation's
 *   few keys, then the same with BENCH_KEYS more keys under its prefix (`DEBUG POPULATE`: small
 *   strings, as many keys as a large installation's users have, for the keyspace scans). Answers
 *   the answer's time and the pass's.
 *
 * BENCH_PARTS (retention,audit,erasure), BENCH_EVENTS (20,000), BENCH_OLD_ROWS (1,000,000),
 * BENCH_WRITES (1,000), BENCH_IN_FLIGHT (4), BENCH_ROUNDS (8), BENCH_KEYS (1,000,000), DATABASE_URL (its server: the
 * bench creates a database there and drops it after). Writes bench/results/data-rights.json and
 * prints a report, the load average beside it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { startApi, type ApiHandle } from '../src/app/api.js';
import { AuditRecorder } from '../src/engine/audit/record.js';
import { runErasures } from '../src/engine/erasure/pass.js';
import { createLogger } from '../src/lib/log.js';
import { loadSettings } from '../src/lib/settings.js';
import { pruneLogArchive } from '../src/postgres/log-retention.js';
import { connectPostgres as connectPool } from '../src/postgres/pool.js';
import { LogDrainer } from '../src/engine/log-drain/drain.js';
import { connectPostgres, createDatabase, dropDatabase } from './postgres.js';
import { freePort, portAnswers } from './processes.js';
import { DEFAULT_DATABASE_URL, ROOT } from './variants.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PARTS = (process.env.BENCH_PARTS ?? 'retention,audit,erasure').split(',');
const EVENTS = num('BENCH_EVENTS', 20_000);
const OLD_ROWS = num('BENCH_OLD_ROWS', 1_000_000);
const WRITES = num('BENCH_WRITES', 1_000);
const ROUNDS = num('BENCH_ROUNDS', 8);
/** Rounds of writes before the measured ones (BENCH_AUDIT_WARMUP), not counted. */
const WARMUP_ROUNDS = num('BENCH_AUDIT_WARMUP', 4);
const IN_FLIGHT = num('BENCH_IN_FLIGHT', 4);
const KEYS = num('BENCH_KEYS', 1_000_000);
const DAY_MS = 86_400_000;

const round1 = (n: number) => Math.round(n * 10) / 10;
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

interface Bench {
  api: ApiHandle;
  url: string;
  key: string;
  pool: pg.Pool;
  drainer: LogDrainer;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** `count` events of `users` users, 32 requests at a time. */
async function sendEvents(b: Bench, count: number, users: number, tag: string): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < count) {
      const i = next++;
      const r = await b.call('POST', '/api/metrics/lessons/event', { user: { id: `${tag}-${i % users}` }, value: 1 });
      if (r.status !== 201) throw new Error(`event: ${r.status} ${JSON.stringify(r.body)}`);
    }
  }));
}

/** Drains until a pass finds nothing; answers the entries archived and the seconds it took. */
async function drainAll(b: Bench): Promise<{ entries: number; seconds: number }> {
  const started = performance.now();
  let entries = 0;
  for (;;) {
    const r = await b.drainer.drain(20);
    entries += r.drained;
    if (r.drained === 0) return { entries, seconds: (performance.now() - started) / 1000 };
  }
}

async function retention(b: Bench): Promise<Record<string, unknown>> {
  const { prefix, partitions } = { prefix: b.api.services.settings.prefix, partitions: b.api.services.keys.partitions };
  // Every partition drained once, so that each has its cursor (the delete walks the partitions that do).
  await sendEvents(b, partitions * 4, partitions * 4, 'warm');
  await drainAll(b);
  const oldest = Date.now() - 400 * DAY_MS;
  const inserted = performance.now();
  for (let from = 0; from < OLD_ROWS; from += 100_000) {
    await b.pool.query(
      `INSERT INTO laurel_log (prefix, partition, first_id, last_id, entries, first_at, last_at, lines, rolled)
       SELECT $1, g % $2, ($3::bigint + g)::text || '-0', ($3::bigint + g)::text || '-0', 1,
              to_timestamp(($3::bigint + g) / 1000.0), to_timestamp(($3::bigint + g) / 1000.0),
              ($3::bigint + g)::text || E'-0\\tevent\\t{"t":"_","u":"old","ts":0}', true
       FROM generate_series($4::bigint, $5::bigint) g`,
      [prefix, partitions, oldest, from, Math.min(OLD_ROWS, from + 100_000) - 1],
    );
  }
  await b.pool.query('VACUUM ANALYZE laurel_log');
  const insertSeconds = (performance.now() - inserted) / 1000;
  process.stdout.write(`retention: ${OLD_ROWS} old batches inserted in ${round1(insertSeconds)} s\n`);

  const rounds: { label: string; entries: number; seconds: number; perSecond: number }[] = [];
  let prune: { rows: number; seconds: number; drainsDuring: number } | null = null;
  for (const label of ['alone', 'while deleting', 'alone again']) {
    await sendEvents(b, EVENTS, 5_000, `r${rounds.length}`);
    let pruning: Promise<void> | null = null;
    if (label === 'while deleting') {
      const started = performance.now();
      pruning = pruneLogArchive(b.pool, prefix, Date.now() - 365 * DAY_MS).then((rows) => {
        prune = { rows, seconds: (performance.now() - started) / 1000, drainsDuring: 0 };
      });
    }
    const d = await drainAll(b);
    const stillPruning = pruning !== null && prune === null;
    rounds.push({ label, ...d, perSecond: Math.round(d.entries / d.seconds) });
    process.stdout.write(`retention: drain ${label}: ${d.entries} entries in ${round1(d.seconds)} s${stillPruning ? ' (the delete still running at its end)' : ''}\n`);
    if (pruning !== null) {
      if (!stillPruning) throw new Error('the delete ended before the drain: raise BENCH_OLD_ROWS or lower BENCH_EVENTS');
      await pruning;
    }
  }
  const p = prune as { rows: number; seconds: number } | null;
  if (p === null || p.rows < OLD_ROWS) throw new Error(`the delete removed ${p?.rows} of ${OLD_ROWS} rows`);
  const alone = (rounds[0].perSecond + rounds[2].perSecond) / 2;
  return {
    oldRows: OLD_ROWS, events: EVENTS, rounds,
    delete: { rows: p.rows, seconds: round1(p.seconds), rowsPerSecond: Math.round(p.rows / p.seconds) },
    whileDeletingOverAlone: round1((100 * rounds[1].perSecond) / alone),
  };
}

/** One round of the audit bench's client (bench/admin-write-client.ts), in a process of its own. */
function clientRound(b: Bench, id: string, round: number): Promise<{ seconds: number; ms: number[] }> {
  const script = fileURLToPath(new URL('./admin-write-client.js', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, b.url, b.key, id, String(WRITES), String(IN_FLIGHT), String(round)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += String(d); });
    child.stderr.on('data', (d: Buffer) => { err += String(d); });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as { seconds: number; ms: number[] });
      else reject(new Error(`the audit bench's client exited with ${code}: ${err}`));
    });
  });
}

async function audit(b: Bench): Promise<Record<string, unknown>> {
  const made = await b.call('POST', '/admin/v1/metrics', [{ name: 'Audited', key: 'audited' }]);
  const id = made.body.created[0].id as string;
  const record = Object.getOwnPropertyDescriptor(AuditRecorder.prototype, 'record')!;
  const { redis, keys } = b.api.services;
  type Round = { audit: boolean; writesPerSecond: number; p50: number; p99: number; serverCpuUsPerWrite: number; loadAverage: number };
  const rounds: Round[] = [];
  // Rounds first that are not counted, the recorder on: the code of both kinds of round warmed up
  // (without them the rounds' rates climbed through the first half of the run).
  for (let w = 1; w <= WARMUP_ROUNDS; w++) await clientRound(b, id, -w);
  await b.api.audit.settle();
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // In pairs, each pair's order the other way round from the last's: on off, off on, on off...
      const on = Math.floor(r / 2) % 2 === 0 ? r % 2 === 0 : r % 2 === 1;
      if (on) Object.defineProperty(AuditRecorder.prototype, 'record', record);
      else Object.defineProperty(AuditRecorder.prototype, 'record', { ...record, value: () => undefined });
      const queuedBefore = await redis.xlen(keys.auditQueue);
      const cpu = process.cpuUsage();
      const c = await clientRound(b, id, r);
      // The entries the recorder holds queued before the CPU is read.
      await b.api.audit.settle();
      const used = process.cpuUsage(cpu);
      const queued = (await redis.xlen(keys.auditQueue)) - queuedBefore;
      if (queued !== (on ? WRITES : 0)) throw new Error(`round ${r}: ${queued} audit entries queued for ${WRITES} writes, audit ${on ? 'on' : 'off'}`);
      const ms = [...c.ms].sort((x, y) => x - y);
      rounds.push({
        audit: on, writesPerSecond: Math.round(WRITES / c.seconds), p50: round1(quantile(ms, 0.5)), p99: round1(quantile(ms, 0.99)),
        serverCpuUsPerWrite: Math.round((used.user + used.system) / WRITES), loadAverage: round1(loadavg()[0]),
      });
      const x = rounds.at(-1)!;
      process.stdout.write(`audit ${on ? 'on ' : 'off'}: ${x.writesPerSecond} writes/s, p50 ${x.p50} ms, p99 ${x.p99} ms, ${x.serverCpuUsPerWrite} µs server CPU a write, load ${x.loadAverage}\n`);
    }
  } finally {
    Object.defineProperty(AuditRecorder.prototype, 'record', record);
  }
  // Each pair's audit-on round over its audit-off round.
  const pairs: { writesPerSecond: number; p50: number; p99: number; serverCpu: number }[] = [];
  for (let r = 0; r + 1 < rounds.length; r += 2) {
    const [on, off] = rounds[r].audit ? [rounds[r], rounds[r + 1]] : [rounds[r + 1], rounds[r]];
    const pct = (a: number, z: number) => round1((100 * a) / z);
    pairs.push({
      writesPerSecond: pct(on.writesPerSecond, off.writesPerSecond), p50: pct(on.p50, off.p50), p99: pct(on.p99, off.p99),
      serverCpu: pct(on.serverCpuUsPerWrite, off.serverCpuUsPerWrite),
    });
  }
  const of = (on: boolean, f: (x: Round) => number) => median(rounds.filter((x) => x.audit === on).map(f));
  const each = (f: (x: typeof pairs[number]) => number) => ({ perPair: pairs.map(f), median: median(pairs.map(f)) });
  return {
    writes: WRITES, inFlight: IN_FLIGHT, rounds,
    onOverOffPercent: { writesPerSecond: each((p) => p.writesPerSecond), p50: each((p) => p.p50), p99: each((p) => p.p99), serverCpu: each((p) => p.serverCpu) },
    writesPerSecond: { on: of(true, (x) => x.writesPerSecond), off: of(false, (x) => x.writesPerSecond) },
    p50: { on: of(true, (x) => x.p50), off: of(false, (x) => x.p50) },
    p99: { on: of(true, (x) => x.p99), off: of(false, (x) => x.p99) },
    serverCpuUsPerWrite: { on: of(true, (x) => x.serverCpuUsPerWrite), off: of(false, (x) => x.serverCpuUsPerWrite) },
  };
}

async function erasure(b: Bench): Promise<Record<string, unknown>> {
  const { redis, keys } = b.api.services;
  const once = async (user: string) => {
    await sendEvents(b, 3, 1, user);
    await drainAll(b);
    const started = performance.now();
    const r = await b.call('DELETE', `/admin/v1/users/${user}-0`);
    if (r.status !== 202) throw new Error(`erase: ${r.status} ${JSON.stringify(r.body)}`);
    const answerMs = performance.now() - started;
    const passStarted = performance.now();
    for (;;) {
      await drainAll(b);
      const done = await runErasures(b.api.services, b.pool);
      if (done.done > 0) break;
      if (performance.now() - passStarted > 300_000) throw new Error('the erasure was not done in 5 minutes');
    }
    const passMs = performance.now() - passStarted;
    const e = await b.call('GET', `/admin/v1/erasures/${r.body.erasureId}`);
    if (e.body.status !== 'done') throw new Error(`erasure: ${JSON.stringify(e.body)}`);
    return { answerMs: round1(answerMs), passMs: round1(passMs) };
  };
  const small = { keys: await redis.dbsize(), ...(await once('few-a')), again: await once('few-b') };
  process.stdout.write(`erasure in ${small.keys} keys: answer ${small.answerMs} ms, pass ${small.passMs} ms (again: ${small.again.passMs} ms)\n`);
  const filled = performance.now();
  await redis.call('DEBUG', 'POPULATE', String(KEYS), `${keys.prefix}:{fill}`, '16');
  const fillSeconds = (performance.now() - filled) / 1000;
  const big = { keys: await redis.dbsize(), ...(await once('many-a')), again: await once('many-b') };
  process.stdout.write(`erasure in ${big.keys} keys: answer ${big.answerMs} ms, pass ${big.passMs} ms (again: ${big.again.passMs} ms)\n`);
  return { small, big, fillSeconds: round1(fillSeconds) };
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const admin = await connectPostgres(serverUrl);
  const database = await createDatabase(admin, serverUrl);
  const redisPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'laurel-bench-redis-'));
  const redisServer = spawn('redis-server', [
    '--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--enable-debug-command', 'yes',
  ], { stdio: 'ignore' });
  let api: ApiHandle | null = null;
  let pool: pg.Pool | null = null;
  const load = loadavg();
  try {
    for (const until = Date.now() + 10_000; !(await portAnswers(redisPort));) {
      if (Date.now() > until) throw new Error('redis-server did not start');
      await sleep(50);
    }
    const key = `bench-admin-${randomBytes(12).toString('hex')}`;
    const settings = loadSettings({
      ...process.env, HOST: '127.0.0.1', PORT: '0', REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_CLUSTER_NODES: '',
      DATABASE_URL: database.url, LAUREL_PREFIX: `bench${randomBytes(5).toString('hex')}`, LAUREL_ADMIN_KEY: key,
    });
    const log = createLogger('silent');
    api = await startApi(settings, log);
    pool = await connectPool(settings);
    const url = `http://127.0.0.1:${api.port}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, {
        method, headers: { 'X-API-KEY': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? null : JSON.parse(text) };
    };
    const b: Bench = { api, url, key, pool, drainer: new LogDrainer(api.services, pool), call };
    const metric = await call('POST', '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }]);
    if (metric.status !== 201) throw new Error(`metric: ${metric.status} ${JSON.stringify(metric.body)}`);
    const results: Record<string, unknown> = { loadAverage: load.map(round1) };
    if (PARTS.includes('retention')) results.retention = await retention(b);
    if (PARTS.includes('audit')) results.audit = await audit(b);
    if (PARTS.includes('erasure')) results.erasure = await erasure(b);
    results.loadAverageAfter = loadavg().map(round1);
    writeFileSync(join(ROOT, 'bench/results/data-rights.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await api?.close().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    redisServer.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(admin, database.name).catch(() => undefined);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
