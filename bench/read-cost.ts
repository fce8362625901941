/**
 * What one costly read costs (`npm run bench:read-cost`; bench/README.md, "A read's cost"): a
 * redis-server of the bench's own, `laurel api` in one process (LAUREL_API_PROCESSES=1,
 * LAUREL_USER_KEY_RATE_LIMIT off: the read's own cost, not the limit's), and two uncapped boards of
 * BENCH_PARTICIPANTS (100,000) generated participants each (test/support/board-participants.ts;
 * values among BENCH_VALUES (100), so that many tie): `wide` of 64 shards, `narrow` of one. With a
 * key scoped to a user, for each board:
 * - a friends board of 1,000 of its participants (`userIds`), read BENCH_READS (20) times one after
 *   another: the median ms, and per read Redis's commands (those its scripts run included), its
 *   script calls and its CPU ms (INFO: used_cpu_user + used_cpu_sys);
 * - the same page read 10 at once: ms until the last answered, and the ms another user's
 *   `GET /api/users/{id}` sent with them took;
 * - 50 at once: the api process's peak resident memory (VmHWM) after, and before (a read not
 *   answered within 180 s counted, not waited for);
 * - a page of 1,000 from the top (`limit=1000`): median ms, and bytes Redis sent a read.
 * BENCH_LAUREL_ROOT runs another build (a directory holding its package.json, lua/ and dist/, with
 * node_modules beside them): a baseline. Writes bench/results/read-cost.json (or the file
 * BENCH_OUT names) and prints it; the load average beside it. Left out: the reads' user names (the
 * generated participants have no records: each name read answers null, as fast as a name), and
 * any other load on the api.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { DEFAULT_TENANT, Keys } from '../src/redis/keys.js';
import { writeParticipants } from '../test/support/board-participants.js';
import { startOwnRedis } from './own-redis.js';
import { ownLaurel } from './own-laurel.js';
import { connectPostgres, dropDatabase } from './postgres.js';
import { startNode, stop, waitReady } from './processes.js';
import { commandStats } from './redis.js';
import { DEFAULT_DATABASE_URL, LAUREL_NODE_FLAGS, ROOT } from './variants.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PARTICIPANTS = num('BENCH_PARTICIPANTS', 100_000);
const VALUES = num('BENCH_VALUES', 100);
const READS = num('BENCH_READS', 20);
const LAUREL_ROOT = process.env.BENCH_LAUREL_ROOT ?? ROOT;
const OUT = process.env.BENCH_OUT ?? join(ROOT, 'bench/results/read-cost.json');
const FRIENDS = 1000;
/** A read not answered in this long is counted as such. */
const TIMEOUT_MS = 180_000;
const START = '2026-01-01';

const round1 = (n: number) => Math.round(n * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** VmRSS and VmHWM of a process, MiB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: round1(kb('VmRSS') / 1024), peak: round1(kb('VmHWM') / 1024) };
}

async function cpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const sec = (f: string) => Number(new RegExp(`^${f}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (sec('used_cpu_user') + sec('used_cpu_sys')) * 1000;
}

async function bytesOut(redis: Redis): Promise<number> {
  return Number(/^total_net_output_bytes:(\d+)/m.exec(await redis.info('stats'))?.[1] ?? 0);
}

async function main(): Promise<void> {
  const own = await startOwnRedis();
  const redis = new Redis(own.url);
  const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const admin = await connectPostgres(serverUrl);
  const { database, prefix, key, url, env } = await ownLaurel(admin, serverUrl, own.url, { LAUREL_API_PROCESSES: '1', LAUREL_USER_KEY_RATE_LIMIT: 'off' });
  const laurel = startNode('laurel', join(LAUREL_ROOT, 'dist/src/cli.js'), ['api'], env, LAUREL_NODE_FLAGS);
  const signal = new AbortController().signal;
  const call = async (path: string, opts: { key?: string; method?: string; body?: unknown } = {}) => {
    const started = performance.now();
    const res = await fetch(url + path, {
      method: opts.method ?? 'GET', headers: { 'X-API-KEY': opts.key ?? key, 'Content-Type': 'application/json' },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${opts.method ?? 'GET'} ${path.slice(0, 80)}: ${res.status} ${text.slice(0, 300)}`);
    return { body: JSON.parse(text) as any, ms: performance.now() - started };
  };
  const results: Record<string, unknown> = { participants: PARTICIPANTS, values: VALUES, friends: FRIENDS, root: LAUREL_ROOT };
  try {
    await waitReady(laurel, `${url}/ready`, signal, 60_000);
    const { plays } = Object.fromEntries((await call('/admin/v1/metrics', { method: 'POST', body: [{ name: 'Plays', key: 'plays' }] })).body.created.map((m: any) => [m.key, m.id]));
    const common = { rankBy: 'metric', metricId: plays, maxParticipants: null, status: 'active', start: START };
    const created = (await call('/admin/v1/leaderboards', {
      method: 'POST', body: [{ ...common, name: 'Wide', key: 'wide', shards: 64 }, { ...common, name: 'Narrow', key: 'narrow' }],
    })).body.created as { id: string; key: string }[];
    const keys = new Keys(prefix, 256);
    const participants = Array.from({ length: PARTICIPANTS }, (_, i) => ({
      userId: `u${i}`, value: 1 + ((Math.imul(i + 1, 2654435761) >>> 0) % VALUES), at: Date.parse('2026-01-02T00:00:00Z') + i * 1000,
    }));
    for (const b of created) {
      await writeParticipants(redis, keys, { tenant: DEFAULT_TENANT, board: b.key === 'wide' ? { id: b.id, shards: 64, shardSlots: 'spread' } : { id: b.id }, run: START }, participants);
    }
    await call('/api/metrics/plays/event', { method: 'POST', body: { user: { id: 'other', name: 'Other' }, value: 1 } });
    const reader = (await call('/admin/v1/application-api-keys', { method: 'POST', body: [{ userId: 'u7' }] })).body.created[0].key as string;
    // Every 100th participant: spread over the board and its values.
    const friends = Array.from({ length: FRIENDS }, (_, i) => `u${(i * 97) % PARTICIPANTS}`).join(',');
    for (const board of ['wide', 'narrow']) {
      const path = `/api/leaderboards/${board}?userIds=${friends}`;
      await call(path, { key: reader });
      const ms: number[] = [];
      const stats0 = await commandStats(redis);
      const cpu0 = await cpuMs(redis);
      for (let i = 0; i < READS; i++) ms.push((await call(path, { key: reader })).ms);
      const cpu1 = await cpuMs(redis);
      const stats1 = await commandStats(redis);
      const calls = (name?: string) => [...stats1].filter(([c]) => name === undefined || c === name)
        .reduce((s, [c, v]) => s + v.calls - (stats0.get(c)?.calls ?? 0), 0);
      const rows = (await call(path, { key: reader })).body.rankings.length as number;
      const parallel = async (n: number) => {
        const started = performance.now();
        const reads = Array.from({ length: n }, () => call(path, { key: reader }).then(() => true, () => false));
        // Another user's read, with the account's key, sent with them.
        const other = await call('/api/users/other').then((r) => Math.round(r.ms), () => null);
        const answered = (await Promise.all(reads)).filter(Boolean).length;
        return { ms: Math.round(performance.now() - started), otherMs: other, unanswered: n - answered };
      };
      const ten = await parallel(10);
      const before = memory(laurel.proc.pid!);
      const fifty = await parallel(50);
      const after = memory(laurel.proc.pid!);
      const page = `/api/leaderboards/${board}?limit=1000`;
      await call(page, { key: reader });
      const pageMs: number[] = [];
      const out0 = await bytesOut(redis);
      for (let i = 0; i < READS; i++) pageMs.push((await call(page, { key: reader })).ms);
      const out1 = await bytesOut(redis);
      results[board] = {
        rows,
        friends: {
          ms: round1(median(ms)), redisCommands: Math.round(calls() / READS), scriptCalls: Math.round((calls('evalsha') + calls('eval')) / READS),
          redisCpuMs: round1((cpu1 - cpu0) / READS),
        },
        friends10: ten, friends50: { ...fifty, rssBeforeMiB: before.rss, peakBeforeMiB: before.peak, peakAfterMiB: after.peak },
        page1000: { ms: round1(median(pageMs)), redisBytesOut: Math.round((out1 - out0) / READS) },
      };
      process.stdout.write(`${board}: ${JSON.stringify(results[board])}\n`);
    }
  } finally {
    await stop(laurel);
    redis.disconnect();
    await own.stop();
    await dropDatabase(admin, database.name);
    await admin.end();
  }
  results.loadavg = loadavg().map(round1);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
