/**
 * The steady-state workload's population (bench/README.md, "The steady-state workload"): before
 * the rounds, `users` users with `days` days of history, made by laurel itself, so the state is
 * what laurel writes (no key layout of the bench's own to drift from it). `laurel start` runs with
 * the manual clock under a key prefix and a database of the population's own, is given
 * `laurel-system`'s scenario (bench/variants.ts: three achievements, a daily streak, the XP points,
 * the board of the top 1,000), then one day at a time (the clock set to that day, `days` days ago
 * up to yesterday, 10:00 UTC) is sent the day's events through `POST /admin/v1/metrics/events`,
 * 1,000 items a request, every batch of the day applied by the workers before the clock moves on:
 * - every user's first event falls on day `rank mod days` (so every user has history);
 * - and `users × DRAWS_A_DAY` draws a day by bench/steady-draw.ts's power law, a user's draws of
 *   the day summed into one item (value: the lessons of the day): the users the load draws most
 *   have been active every day (a streak of `days`), the highest totals, the achievements and the
 *   board's places.
 * Once the workers have drained the log into Postgres (the directory's rows, the rollups, the
 * archive), the server stops; the steady variants start theirs on the same prefix and database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { DrainMonitor } from './drain.js';
import { createDatabase, dropDatabase } from './postgres.js';
import { freePort, stop, waitReady } from './processes.js';
import { deleteByPrefix } from './redis.js';
import { random } from './random.js';
import { drawRank, STEADY_SKEW } from './steady-draw.js';
import { laurel, type LaurelSpec } from './variants.js';

/** A day's draws, as a share of the users (their sum over users: a day's lessons). */
export const DRAWS_A_DAY = 0.2;
const BATCH = 1000;
const DAY_MS = 86_400_000;
/** The generator's seed (bench/random.ts): the same population every run. */
const SEED = 0x5eed;

/** laurel-system's scenario: what the population is made under and the steady variants run. */
export const STEADY_SCENARIO: LaurelSpec = {
  name: 'steady-population', description: 'the steady-state population', features: 'all', processes: 'start', board: 1000,
};

export interface Population {
  prefix: string;
  apiKey: string;
  database: { name: string; url: string };
  users: number;
  days: number;
  /** Items sent (one a user and active day). */
  items: number;
  /** Lessons in them (the sum of the values). */
  lessons: number;
  seconds: number;
}

export interface PopulationOptions {
  users: number;
  days: number;
  host: string;
  redisUrl: string;
  databaseUrl: string;
}

/** The day's items: user rank to the lessons of the day. */
export function dayItems(users: number, days: number, day: number, next: () => number): Map<number, number> {
  const items = new Map<number, number>();
  for (let rank = day; rank < users; rank += days) items.set(rank, 1);
  const draws = Math.round(users * DRAWS_A_DAY);
  for (let i = 0; i < draws; i++) {
    const rank = drawRank(users, STEADY_SKEW, next);
    items.set(rank, (items.get(rank) ?? 0) + 1);
  }
  return items;
}

/** Makes the population (bench/README.md); on failure nothing of it is left. */
export async function makePopulation(o: PopulationOptions, redis: Redis, admin: pg.Client, log: (line: string) => void, signal: AbortSignal): Promise<Population> {
  const started = performance.now();
  const database = await createDatabase(admin, o.databaseUrl);
  const port = await freePort(o.host);
  const variant = laurel(STEADY_SCENARIO);
  const session = variant.launch({ host: o.host, port, redisUrl: o.redisUrl, databaseUrl: database.url, env: { LAUREL_CLOCK: 'manual' } });
  const base = session.readyUrl.replace(/\/ready$/, '');
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any; retryAfter: string | null }> => {
    const res = await fetch(base + path, {
      method, signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
      headers: { 'X-API-KEY': session.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text), retryAfter: res.headers.get('retry-after') };
  };
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, body);
    if (r.status >= 300) throw new Error(`population: ${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const dayAt = (day: number) => new Date(today - (o.days - day) * DAY_MS + 10 * 3_600_000).toISOString();
  let items = 0;
  let lessons = 0;
  try {
    await waitReady(session.child, session.readyUrl, signal, 60_000);
    await must('PUT', '/admin/v1/clock', { now: dayAt(0) });
    await variant.prepare!(session, signal);
    const next = random(SEED);
    for (let day = 0; day < o.days; day++) {
      await must('PUT', '/admin/v1/clock', { now: dayAt(day) });
      // The workers hear of the clock as the api does (through Redis): let them.
      await sleep(500);
      const batches: string[] = [];
      let chunk: unknown[] = [];
      const send = async () => {
        for (;;) {
          const r = await call('POST', '/admin/v1/metrics/events', chunk);
          if (r.status === 202) { batches.push(r.body.batchId as string); break; }
          if (r.status !== 503) throw new Error(`population: a batch: ${r.status} ${JSON.stringify(r.body)}`);
          await sleep(1000 * Number(r.retryAfter ?? 1));
        }
        chunk = [];
      };
      for (const [rank, value] of dayItems(o.users, o.days, day, next)) {
        chunk.push({ key: 'lessons', user: { id: `user-${rank}` }, value });
        items++;
        lessons += value;
        if (chunk.length === BATCH) await send();
      }
      if (chunk.length > 0) await send();
      for (const id of batches) {
        for (;;) {
          const p = await must('GET', `/admin/v1/metrics/events/${id}`) as { accepted: number; processed: number; failed: number };
          if (p.failed > 0) throw new Error(`population: batch ${id}: ${p.failed} items failed`);
          if (p.processed === p.accepted) break;
          await sleep(200);
        }
      }
      log(`  population: day ${day + 1}/${o.days} (${dayAt(day).slice(0, 10)}), ${items} items so far, ${Math.round((performance.now() - started) / 1000)} s`);
    }
    const drain = new DrainMonitor(redis, session.prefix!, session.drain!.partitions);
    if (!(await drain.waitDrained(600, signal))) throw new Error('population: the drain had not caught up 600 s after the last day');
    await stop(session.child);
    return { prefix: session.prefix!, apiKey: session.apiKey, database, users: o.users, days: o.days, items, lessons, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    await stop(session.child);
    await deleteByPrefix(redis, session.prefix!);
    await dropDatabase(admin, database.name);
    throw err;
  }
}
