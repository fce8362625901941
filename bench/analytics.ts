/**
 * The dashboard's analytics read at load, black-box (`npm run bench:analytics`): `laurel start`
 * (its api processes and workers, a database and a key prefix of its own, the manual clock) is
 * sent EVENTS events over DAYS days for USERS users through the Admin API's batches, a day at a
 * time (the clock moved to the day, the day's batches applied by the workers before the next); then
 * once the log drain has rolled every event up, `GET /admin/v1/analytics` for the whole range is
 * read READS times one after another (p50, p95, p99, max), and CONCURRENT at once ROUNDS times
 * (every answer a 200, or a 503 with Retry-After at worst; any other answer, or none within 30 s,
 * a failure). The figures it answers are compared with what was sent: the events per day and per
 * metric and the new users exactly, the users active each day exactly, the range's and each day's
 * weekly active users (HyperLogLog estimates) with their error.
 *
 * BENCH_EVENTS (400,000), BENCH_USERS (50,000), BENCH_DAYS (14), BENCH_READS (200),
 * BENCH_CONCURRENT (12), BENCH_ROUNDS (20), LAUREL_API_PROCESSES (2, `npm start` on 2 cores),
 * REDIS_URL, DATABASE_URL (its server: the bench creates a database there and drops it after).
 * Writes bench/results/analytics.json and prints a report; the load average beside it.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectPostgres, dropDatabase } from './postgres.js';
import { ownLaurel } from './own-laurel.js';
import { startNode, stop, waitReady } from './processes.js';
import { connectRedis, deleteByPrefix } from './redis.js';
import type { AnalyticsView } from '../src/model/views.js';
import { DEFAULT_DATABASE_URL, LAUREL_NODE_FLAGS, ROOT } from './variants.js';
import { random } from './random.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const EVENTS = num('BENCH_EVENTS', 400_000);
const USERS = num('BENCH_USERS', 50_000);
const DAYS = num('BENCH_DAYS', 14);
const READS = num('BENCH_READS', 200);
const CONCURRENT = num('BENCH_CONCURRENT', 12);
const ROUNDS = num('BENCH_ROUNDS', 20);
const API_PROCESSES = process.env.LAUREL_API_PROCESSES ?? '2';
const BATCH = 1000;
const FIRST_DAY = Date.parse('2026-03-02T00:00:00Z');
const DAY_MS = 86_400_000;
const TIMEOUT_MS = 30_000;

const dateOf = (day: number) => new Date(FIRST_DAY + day * DAY_MS).toISOString().slice(0, 10);

/** What was sent, per day: the events by metric, the users, the users first seen. */
interface Sent {
  date: string;
  byMetric: Record<string, number>;
  users: Set<number>;
  fresh: number;
}

type Analytics = Pick<AnalyticsView, 'days' | 'activeUsers'>;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const redis = await connectRedis(redisUrl);
  const admin = await connectPostgres(serverUrl);
  const { database, prefix, key, url, env } = await ownLaurel(admin, serverUrl, redisUrl, { LAUREL_CLOCK: 'manual', LAUREL_API_PROCESSES: API_PROCESSES });
  const laurel = startNode('laurel', join(ROOT, 'dist/src/cli.js'), ['start'], env, LAUREL_NODE_FLAGS);
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any; retryAfter: string | null; ms: number }> => {
    const started = performance.now();
    const res = await fetch(url + path, {
      method, signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { 'X-API-KEY': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text), retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
  };
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  try {
    await waitReady(laurel, `${url}/ready`, new AbortController().signal, 60_000);
    await must('PUT', '/admin/v1/clock', { now: new Date(FIRST_DAY + 10 * 3_600_000).toISOString() });
    await must('POST', '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }, { name: 'Quizzes', key: 'quizzes' }]);
    const metricId = (await must('GET', '/admin/v1/metrics?limit=10') as { id: string; key: string }[]).find((m) => m.key === 'lessons')!.id;
    await must('POST', '/admin/v1/achievements', [{ name: 'Ten lessons', key: 'ten', trigger: 'metric', metricId, metricValue: 10 }]);

    // The load: each event a user drawn at random, three in four a lesson, one a quiz.
    const next = random(0x1a2b3c);
    const seen = new Set<number>();
    const sent: Sent[] = [];
    const loadStarted = performance.now();
    for (let day = 0; day < DAYS; day++) {
      await must('PUT', '/admin/v1/clock', { now: new Date(FIRST_DAY + day * DAY_MS + 10 * 3_600_000).toISOString() });
      // The workers (in the primary) hear of the clock as the api processes do: let them.
      await sleep(500);
      const count = Math.floor(EVENTS / DAYS) + (day < EVENTS % DAYS ? 1 : 0);
      const today: Sent = { date: dateOf(day), byMetric: { lessons: 0, quizzes: 0 }, users: new Set(), fresh: 0 };
      const batches: string[] = [];
      for (let sentToday = 0; sentToday < count; sentToday += BATCH) {
        const items = [];
        for (let i = 0; i < Math.min(BATCH, count - sentToday); i++) {
          const user = Math.floor(next() * USERS);
          const metric = next() < 0.75 ? 'lessons' : 'quizzes';
          today.byMetric[metric]++;
          today.users.add(user);
          if (!seen.has(user)) { seen.add(user); today.fresh++; }
          items.push({ key: metric, user: { id: `user-${user}` }, value: 1 });
        }
        for (;;) {
          const r = await call('POST', '/admin/v1/metrics/events', items);
          if (r.status === 202) { batches.push(r.body.batchId as string); break; }
          if (r.status !== 503) throw new Error(`batch: ${r.status} ${JSON.stringify(r.body)}`);
          await sleep(1000 * Number(r.retryAfter ?? 1));
        }
      }
      // Every batch of the day applied before the clock moves on.
      for (const id of batches) {
        for (;;) {
          const p = await must('GET', `/admin/v1/metrics/events/${id}`) as { accepted: number; processed: number; failed: number };
          if (p.failed > 0) throw new Error(`batch ${id}: ${p.failed} items failed`);
          if (p.processed === p.accepted) break;
          await sleep(200);
        }
      }
      sent.push(today);
      process.stdout.write(`day ${today.date}: ${count} events, ${today.users.size} users, ${today.fresh} new (${Math.round((performance.now() - loadStarted) / 1000)} s)\n`);
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const range = `from=${dateOf(0)}&to=${dateOf(DAYS - 1)}`;

    // The drain rolls them up: wait until every event is counted.
    const drainStarted = performance.now();
    let answer: Analytics;
    for (;;) {
      answer = await must('GET', `/admin/v1/analytics?${range}`) as Analytics;
      const counted = answer.days.reduce((n, d) => n + d.events, 0);
      if (counted >= EVENTS) break;
      if (performance.now() - drainStarted > 300_000) throw new Error(`only ${counted} of ${EVENTS} events counted after 5 minutes`);
      await sleep(500);
    }
    const drainSeconds = (performance.now() - drainStarted) / 1000;

    // The figures against what was sent.
    const mismatches: string[] = [];
    const errors = { weekly: [] as number[] };
    for (let i = 0; i < DAYS; i++) {
      const d = answer.days[i];
      const s = sent[i];
      const events = s.byMetric.lessons + s.byMetric.quizzes;
      if (d.date !== s.date || d.events !== events || d.activeUsers !== s.users.size || d.newUsers !== s.fresh
        || d.byMetric.lessons !== s.byMetric.lessons || d.byMetric.quizzes !== s.byMetric.quizzes) {
        mismatches.push(`${s.date}: answered ${JSON.stringify(d)}, sent ${events} events, ${s.users.size} users, ${s.fresh} new, ${JSON.stringify(s.byMetric)}`);
      }
      const week = new Set<number>();
      for (let j = Math.max(0, i - 6); j <= i; j++) for (const u of sent[j].users) week.add(u);
      errors.weekly.push((d.weeklyActiveUsers - week.size) / week.size);
    }
    const rangeError = (answer.activeUsers - seen.size) / seen.size;
    const completions = answer.days.reduce((n, d) => n + d.completions, 0);

    // One read after another.
    const sequential: number[] = [];
    for (let i = 0; i < READS; i++) {
      const r = await call('GET', `/admin/v1/analytics?${range}`);
      if (r.status !== 200) throw new Error(`read ${i}: ${r.status} ${JSON.stringify(r.body)}`);
      sequential.push(r.ms);
    }
    sequential.sort((a, b) => a - b);

    // CONCURRENT at once, ROUNDS times.
    const concurrent: number[] = [];
    const outcome = { ok: 0, retryLater: 0, failed: 0 };
    const failures: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await Promise.all(Array.from({ length: CONCURRENT }, async () => {
        try {
          const a = await call('GET', `/admin/v1/analytics?${range}`);
          if (a.status === 200) { outcome.ok++; concurrent.push(a.ms); } else if (a.status === 503 && a.retryAfter !== null) outcome.retryLater++;
          else { outcome.failed++; failures.push(`${a.status} ${JSON.stringify(a.body)}`); }
        } catch (err) {
          outcome.failed++;
          failures.push((err as Error).message);
        }
      }));
    }
    concurrent.sort((a, b) => a - b);

    const result = {
      when: new Date().toISOString(), loadavg: loadavg().map(round1),
      load: { events: EVENTS, users: USERS, usersSeen: seen.size, days: DAYS, apiProcesses: Number(API_PROCESSES), seconds: round1(loadSeconds) },
      drainCatchUpSeconds: round1(drainSeconds),
      counts: {
        exact: mismatches.length === 0, mismatches, completions,
        rangeActiveUsers: { answered: answer.activeUsers, sent: seen.size, errorPercent: round1(rangeError * 1000) / 10 },
        weeklyActiveMaxErrorPercent: round1(Math.max(...errors.weekly.map(Math.abs)) * 1000) / 10,
      },
      sequential: {
        reads: READS, p50: round1(quantile(sequential, 0.5)), p95: round1(quantile(sequential, 0.95)),
        p99: round1(quantile(sequential, 0.99)), max: round1(sequential[sequential.length - 1]),
      },
      concurrent: {
        atOnce: CONCURRENT, rounds: ROUNDS, ...outcome, failures: failures.slice(0, 5),
        p50: concurrent.length === 0 ? null : round1(quantile(concurrent, 0.5)),
        p95: concurrent.length === 0 ? null : round1(quantile(concurrent, 0.95)),
        max: concurrent.length === 0 ? null : round1(concurrent[concurrent.length - 1]),
      },
    };
    writeFileSync(join(ROOT, 'bench/results/analytics.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    const met = result.sequential.p95 <= 300 && result.counts.exact && outcome.failed === 0;
    process.stdout.write(`\nanalytics read p95 ${result.sequential.p95} ms (target ≤ 300), counts ${result.counts.exact ? 'equal' : 'DIFFER'}, `
      + `${CONCURRENT} at once: ${outcome.ok} answered, ${outcome.retryLater} 503 with Retry-After, ${outcome.failed} failed: `
      + `${met ? 'target met' : 'TARGET MISSED'}; load average ${result.loadavg.join(' ')}\n`);
    if (!met) process.exitCode = 1;
  } finally {
    await stop(laurel);
    await deleteByPrefix(redis, prefix);
    redis.disconnect();
    await dropDatabase(admin, database.name);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
