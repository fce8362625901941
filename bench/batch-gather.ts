/**
 * What a batch item costs the workers, items gathered into runs or applied one by one
 * (`npm run bench:batch-gather`; docs/performance.md, "Batch events"). A Redis of its own (its CPU
 * and command counts are the items' alone), `laurel api` (no workers: the queues wait) on
 * laurel-system's scenario (three achievements, a daily streak, a points trigger, a board of the
 * top 1,000), and in this process the workers' batch loop (src/engine/batches/process.ts) applying
 * what was queued. Each pass queues BATCHES batches of 500 of one workload, then times one
 * worker applying them all, gathering or not, in turns (ROUNDS of each, alternating, each on users
 * of its own):
 *   present  the bench's laurel-batch: each item a user drawn from 100,000
 *   minute   laurel-batch-minute: each batch's items from 100 users drawn for it, 5 a user
 * Reported per item: wall time, this process's CPU, Redis's CPU, Redis commands (FCALL among
 * them); the log drain, Postgres and the HTTP acceptance are not in the figures.
 */
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { BatchProcessor } from '../src/engine/batches/process.js';
import { connect } from '../src/engine/services.js';
import { loadSettings } from '../src/lib/settings.js';
import { startOwnRedis } from './own-redis.js';
import { ownLaurel } from './own-laurel.js';
import { startNode, stop, waitReady } from './processes.js';
import { connectPostgres, dropDatabase } from './postgres.js';
import { random } from './random.js';
import { LAUREL_NODE_FLAGS, ROOT } from './variants.js';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = 500;
const USERS = 100_000;

type Workload = 'present' | 'minute';

function batchOf(workload: Workload, next: () => number, tag: string): unknown[] {
  const draw = () => Math.floor(next() * USERS);
  const active = Array.from({ length: SIZE / 5 }, draw);
  return Array.from({ length: SIZE }, () => {
    const n = workload === 'present' ? draw() : active[Math.floor(next() * active.length)];
    return { key: 'lessons', user: { id: `${tag}-${n}` }, value: 1 };
  });
}

async function redisFigures(redis: Redis): Promise<{ cpuS: number; calls: number; fcalls: number }> {
  const cpu = await redis.info('cpu');
  const user = Number(/used_cpu_user:([\d.]+)/.exec(cpu)![1]);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(cpu)![1]);
  const stats = await redis.info('commandstats');
  let calls = 0;
  let fcalls = 0;
  for (const m of stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) {
    calls += Number(m[2]);
    if (m[1] === 'fcall') fcalls += Number(m[2]);
  }
  return { cpuS: user + sys, calls, fcalls };
}

async function main(): Promise<void> {
  const own = await startOwnRedis();
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = await connectPostgres(serverUrl);
  const { database, key, url, env } = await ownLaurel(admin, serverUrl, own.url, { LAUREL_API_PROCESSES: '1', LAUREL_BATCH_MAX_WAITING: '10000000' });
  const api = startNode('laurel api', join(ROOT, 'dist/src/cli.js'), ['api'], env, LAUREL_NODE_FLAGS);
  const must = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(url + path, {
      method, headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text === '' ? null : JSON.parse(text);
  };
  const redis = new Redis(own.url);
  try {
    await waitReady(api, `${url}/ready`, new AbortController().signal, 60_000);
    await must('POST', '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }]);
    const metricId = (await must('GET', '/admin/v1/metrics?limit=10') as { id: string }[])[0].id;
    await must('POST', '/admin/v1/achievements', [1, 10, 100].map((v) => ({ name: `L${v}`, key: `l${v}`, trigger: 'metric', metricId, metricValue: v })));
    await must('PUT', '/admin/v1/streaks/settings', { frequency: 'daily', metrics: [{ metricId, threshold: 1 }] });
    const xp = await must('POST', '/admin/v1/points', [{
      name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 10, status: 'active' }],
    }]);
    await must('POST', '/admin/v1/leaderboards', [{ name: 'Top', key: 'top', status: 'active', rankBy: 'metric', metricId, maxParticipants: 1000 }]);
    void xp;
    const svc = await connect(loadSettings(env), pino({ level: 'warn' }));
    const next = random(0x54);
    process.stdout.write(`batch-gather: ${BATCHES} batches of ${SIZE} a pass, ${ROUNDS} rounds\n`);
    const rows: string[] = [];
    let pass = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const workload of ['present', 'minute'] as Workload[]) {
        for (const gather of round % 2 === 1 ? [true, false] : [false, true]) {
          const tag = `p${pass++}`;
          for (let b = 0; b < BATCHES; b++) await must('POST', '/admin/v1/metrics/events', batchOf(workload, next, tag));
          const worker = new BatchProcessor(svc, undefined, gather);
          const r0 = await redisFigures(redis);
          const c0 = cpuUsage();
          const t0 = performance.now();
          const done = await worker.drain();
          const wallS = (performance.now() - t0) / 1000;
          const c = cpuUsage(c0);
          const r1 = await redisFigures(redis);
          await worker.close();
          const n = done.items;
          const row = `round ${round} ${workload.padEnd(7)} ${gather ? 'gathered  ' : 'one by one'}: ${n} items, ${Math.round(n / wallS)} items/s; ` +
            `per item: node ${((c.user + c.system) / n).toFixed(1)} µs, Redis ${((r1.cpuS - r0.cpuS) * 1e6 / n).toFixed(1)} µs, ` +
            `${((r1.calls - r0.calls) / n).toFixed(2)} commands (${((r1.fcalls - r0.fcalls) / n).toFixed(2)} FCALL)`;
          rows.push(row);
          process.stdout.write(`${row}\n`);
          if (done.failed > 0) throw new Error(`${done.failed} items failed`);
        }
      }
    }
    await svc.close();
  } finally {
    redis.disconnect();
    await stop(api);
    await dropDatabase(admin, database.name).catch(() => undefined);
    await admin.end();
    await own.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`batch-gather: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
