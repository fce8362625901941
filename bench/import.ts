/**
 * A team's history imported (`npm run bench:import`; docs/performance.md, "A history imported"):
 * a Redis of its own, `laurel start` as users run it (its api processes and the workers), the
 * language app (three achievements, a daily streak with a freeze, XP points, a perpetual board of
 * the top 1,000 and a daily board), and a history file of BENCH_IMPORT_EVENTS events (a million by
 * default) for BENCH_IMPORT_USERS users (50,000) over the year before the run, written as NDJSON
 * in no order, then `laurel import` run on it as a user runs it. Reported: the wall time and events
 * a second from the command's start to its end (reading, sorting, sending, the workers applying
 * every part, the past runs finalised again after), each process's peak resident memory (sampled
 * every half second: the command, laurel's primary, its api processes and workers), Redis's memory
 * after it, and that every event was applied. Left out: Postgres's share (the log drain archives
 * the events as they are applied, on the same machine) is in the time, not reported apart.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { childPids } from './cpu.js';
import { startOwnRedis, usedMemory } from './own-redis.js';
import { ownLaurel } from './own-laurel.js';
import { startNode, stop, waitReady, type Child } from './processes.js';
import { connectPostgres, dropDatabase } from './postgres.js';
import { random } from './random.js';
import { LAUREL_NODE_FLAGS, ROOT } from './variants.js';

const EVENTS = Number(process.env.BENCH_IMPORT_EVENTS ?? 1_000_000);
const USERS = Number(process.env.BENCH_IMPORT_USERS ?? 50_000);
const DAY = 86_400_000;
const YEAR_DAYS = 365;
/** How often the processes' memory is read (ms). */
const SAMPLE_MS = 500;

/** A process's resident memory (bytes), or 0 once it is gone. */
function rss(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb === null ? 0 : Number(kb[1]) * 1024;
  } catch {
    return 0;
  }
}

/** The process's name as its command line says (laurel's primary, an api process, the workers). */
function roleOf(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return args.slice(1).filter((a) => !a.startsWith('-')).map((a) => a.split('/').pop()).join(' ') || args[0];
  } catch {
    return String(pid);
  }
}

/**
 * The history: each user's events on days drawn over the year, at hours of the day in their own
 * zone, written one a line in the order they were drawn (users interleaved, days in no order).
 */
async function writeHistory(file: string, end: number): Promise<number> {
  const next = random(0x1f);
  const zones = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney'];
  const out = createWriteStream(file);
  let written = 0;
  for (let i = 0; i < EVENTS; i++) {
    const u = Math.floor(next() * USERS);
    const at = end - Math.floor(next() * YEAR_DAYS) * DAY - Math.floor(next() * DAY);
    const user = { id: `h${u}`, tz: zones[u % zones.length] };
    const line = `${JSON.stringify({ key: 'lessons', user, value: 1 + Math.floor(next() * 3), occurredAt: new Date(at).toISOString() })}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    written++;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return written;
}

async function main(): Promise<void> {
  const own = await startOwnRedis();
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = await connectPostgres(serverUrl);
  const { database, key, url, env, prefix } = await ownLaurel(admin, serverUrl, own.url, {});
  const laurel = startNode('laurel start', join(ROOT, 'dist/src/cli.js'), ['start'], env, LAUREL_NODE_FLAGS);
  const dir = await mkdtemp(join(tmpdir(), 'laurel-bench-import-'));
  const redis = new Redis(own.url);
  let command: Child | null = null;
  try {
    await waitReady(laurel, `${url}/ready`, new AbortController().signal, 60_000);
    const must = async (method: string, path: string, body?: unknown): Promise<any> => {
      const res = await fetch(url + path, { method, headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return text === '' ? null : JSON.parse(text);
    };
    const end = Date.now() - DAY;
    const start = new Date(end - (YEAR_DAYS + 1) * DAY).toISOString().slice(0, 10);
    const metricId = (await must('POST', '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }])).created[0].id as string;
    await must('POST', '/admin/v1/achievements', [1, 10, 100].map((v) => ({ name: `L${v}`, key: `l${v}`, trigger: 'metric', metricId, metricValue: v })));
    await must('PUT', '/admin/v1/streaks/settings', { frequency: 'daily', metrics: [{ metricId, threshold: 1 }], freezes: { initial: 1, max: 2, autoEarnInterval: 7, autoEarnAmount: 1 } });
    await must('POST', '/admin/v1/points', [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 10, status: 'active' }] }]);
    await must('POST', '/admin/v1/leaderboards', [
      { name: 'Top', key: 'top', status: 'active', rankBy: 'metric', metricId, maxParticipants: 1000 },
      { name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId, maxParticipants: 1000, start, runUnit: 'day', runInterval: 1 },
    ]);
    const file = join(dir, 'history.ndjson');
    const events = await writeHistory(file, end);
    const size = (await stat(file)).size;
    process.stdout.write(`import: ${events.toLocaleString('en')} events for ${USERS.toLocaleString('en')} users over ${YEAR_DAYS} days, ${(size / 2 ** 20).toFixed(1)} MiB of NDJSON\n`);

    const peaks = new Map<number, { role: string; bytes: number }>();
    const t0 = performance.now();
    command = startNode('laurel import', join(ROOT, 'dist/src/cli.js'), ['import', file, '--url', url, '--key', key], { ...process.env });
    const commandPid = command.proc.pid!;
    const sampler = setInterval(() => {
      for (const pid of [commandPid, laurel.proc.pid!, ...childPids(laurel.proc.pid!)]) {
        const bytes = rss(pid);
        const seen = peaks.get(pid);
        if (seen === undefined) peaks.set(pid, { role: pid === commandPid ? 'laurel import' : roleOf(pid), bytes });
        else seen.bytes = Math.max(seen.bytes, bytes);
      }
    }, SAMPLE_MS);
    const code = await command.exited;
    const wallS = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`laurel import exited ${code}:\n${command.output.join('\n')}`);
    // The past runs finalised again: once the workers' pass has forgotten every import noted.
    while (await redis.hlen(`${prefix}:{imports}`) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const refinalisedS = (performance.now() - t0) / 1000 - wallS;
    clearInterval(sampler);
    const redisBytes = await usedMemory(redis);
    const rows = [
      `wall time: ${wallS.toFixed(1)} s, ${Math.round(events / wallS).toLocaleString('en')} events/s (${command.output.filter((l) => l.startsWith('imported')).join('')})`,
      `past runs finalised again: ${refinalisedS.toFixed(1)} s after the command ended`,
      ...[...peaks].map(([pid, p]) => `peak resident memory, ${p.role} (pid ${pid}): ${(p.bytes / 2 ** 20).toFixed(0)} MiB`),
      `Redis used memory after: ${(redisBytes / 2 ** 20).toFixed(0)} MiB`,
    ];
    for (const row of rows) process.stdout.write(`${row}\n`);
  } finally {
    if (command !== null) await stop(command);
    redis.disconnect();
    await stop(laurel);
    await rm(dir, { recursive: true, force: true });
    await dropDatabase(admin, database.name).catch(() => undefined);
    await admin.end();
    await own.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`import: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
