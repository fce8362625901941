/**
 * What the log drain's Postgres work costs an event, each part apart (`npm run bench:postgres`).
 * The drain (src/engine/log-drain/drain.ts) writes three things per pass, in one transaction each group of
 * partitions: the archive (a `laurel_log` row per partition batch and the partitions' cursors:
 * src/postgres/log-archive.ts), the analytics rollups (the day, metric and achievement counters)
 * and a row per user seen (`laurel_rollup_users`: the rollups' user state and the user directory,
 * src/postgres/analytics/rollups.ts). This bench calls laurel's own `LogArchive.commit` with the
 * batches a drain pass would make, on a database of its own and a pool of one connection, and
 * reads that connection's backend CPU (/proc/<pid>/stat) and the WAL it wrote, per event, for:
 * - `archive`: the entries archived, nothing rolled up (an empty rollup);
 * - `launch day`: archive and rollups, every event a user's first (a new user row each);
 * - `returning, first today`: archive and rollups, the events of a population of POPULATION users
 *   last active yesterday, drawn from a skewed distribution (a user's first event of the day
 *   updates their row, the rest change nothing; the drainer does not know their rows yet, as
 *   after its process started: each is read and written until it has seen that the users it does
 *   not know are mostly returning ones, then moved in one statement);
 * - `returning, first next day, known`: the same events on the next day, the drainer knowing the
 *   rows from the day before (each user's first event of the day moves their row in one statement,
 *   src/postgres/analytics/rollups.ts NEW_DAY_SQL);
 * - `returning, again that day`: the same events once more, the same day (no user row changes).
 * The rollups' and user rows' part is each scenario minus `archive`. It leaves out Postgres's
 * background processes (WAL writer, checkpointer: the WAL column is what they flush) and the
 * drain's own CPU in node (parsing, batching).
 *
 * BENCH_EVENTS (200,000 a scenario), BENCH_POPULATION (1,000,000), BENCH_PASS_EVENTS (1,000:
 * the events one drain pass finds; 256 partitions, 32 a transaction, as the drain groups them),
 * DATABASE_URL (its server: the bench creates a database there and drops it after).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type pg from 'pg';
import { connectPostgres as connectAdmin, createDatabase, dropDatabase } from './postgres.js';
import { microsPerTick, statTimes } from './cpu.js';
import { DEFAULT_DATABASE_URL } from './variants.js';
import { random } from './random.js';
import { loadSettings } from '../src/lib/settings.js';
import { connectPostgres } from '../src/postgres/pool.js';
import { archiveLine, LogArchive, type ArchiveBatch } from '../src/postgres/log-archive.js';
import { KnownUsers } from '../src/postgres/analytics/known-users.js';
import { rollupStep } from '../src/postgres/analytics/rollups.js';
import { emptyRollup, rollEntry, DAY_MS, type BatchRollup } from '../src/domain/analytics-rollup.js';
import { eventEntry } from '../src/model/log.js';
import type { LogBody } from '../src/model/log.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const EVENTS = num('BENCH_EVENTS', 200_000);
const POPULATION = num('BENCH_POPULATION', 1_000_000);
const PASS_EVENTS = num('BENCH_PASS_EVENTS', 1000);
const PARTITIONS = 256;
const PASS_GROUP = 32;
const PREFIX = 'bench';
const TENANT = '';
const TODAY = Math.floor(Date.parse('2026-03-10T00:00:00Z') / DAY_MS);

/** The users of `count` events: `skewed` draws from the population by a power law (a few users make most events); else each a new user. */
function usersOf(count: number, skewed: boolean, seed: number): number[] {
  const next = random(seed);
  const users: number[] = [];
  for (let i = 0; i < count; i++) users.push(skewed ? Math.floor(POPULATION * next() ** 3) : POPULATION + seed * count + i);
  return users;
}

/** An event's body as the event script logs it, with a points award and a streak extension. */
function bodyOf(user: number, ts: number, n: number): string {
  const head = eventEntry({
    eventId: `${ts.toString(16)}${n.toString(16).padStart(8, '0')}`, tenant: TENANT, userId: `user-${user}`, metricId: 'lessons',
    value: '1', ts, day: new Date(ts).toISOString().slice(0, 10), idempotencyKey: '', attributesJson: '', processId: 'p1', tz: '',
    identificationJson: '',
  });
  return `${head.slice(0, -1)},"sx":"${TODAY}:1:0","pa":[["xp","t1",10,${10 * (n + 1)},${n + 1},""]]}`;
}

/** The entries' sequence numbers, never reused: each entry's stream id is unique across the scenarios. */
let seq = 0;

/** The drain passes of `users`' events: each pass's batches per partition, in groups of PASS_GROUP partitions. */
function passesOf(users: number[], roll: boolean, cursors: Map<number, string>, firstMs: number): { batches: ArchiveBatch[]; rollup: BatchRollup }[] {
  const out: { batches: ArchiveBatch[]; rollup: BatchRollup }[] = [];
  for (let from = 0; from < users.length; from += PASS_EVENTS) {
    const byPartition = new Map<number, { id: string; body: string }[]>();
    users.slice(from, from + PASS_EVENTS).forEach((user, i) => {
      const ts = firstMs + from + i;
      const p = user % PARTITIONS;
      let list = byPartition.get(p);
      if (list === undefined) byPartition.set(p, (list = []));
      list.push({ id: `${ts}-${seq++}`, body: bodyOf(user, ts, from + i) });
    });
    const partitions = [...byPartition.keys()].sort((a, b) => a - b);
    for (let g = 0; g < partitions.length; g += PASS_GROUP) {
      const rollup = emptyRollup();
      const batches = partitions.slice(g, g + PASS_GROUP).map((partition) => {
        const entries = byPartition.get(partition) ?? [];
        if (roll) for (const e of entries) rollEntry(rollup, 'event', JSON.parse(e.body) as LogBody, null);
        const batch: ArchiveBatch = {
          partition, previous: cursors.get(partition) ?? '', firstId: entries[0].id, lastId: entries[entries.length - 1].id,
          count: entries.length, lines: entries.map((e) => archiveLine(e.id, 'event', e.body)).join('\n'),
        };
        cursors.set(partition, batch.lastId);
        return batch;
      });
      out.push({ batches, rollup });
    }
  }
  return out;
}

/** The backend's CPU ticks (user + system). */
function backendTicks(pid: number): number {
  const [user, system] = statTimes(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return user + system;
}

interface Measured {
  scenario: string;
  events: number;
  transactions: number;
  seconds: number;
  cpuUsPerEvent: number;
  walBytesPerEvent: number;
  /** User rows inserted. */
  newUserRows: number;
  /** Stored user rows whose last active day became the scenario's. */
  rowsActiveNow: number;
}

async function walLsn(pool: pg.Pool): Promise<string> {
  return (await pool.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
}

/** The user rows: all of them, and those last active on `day`. */
async function userRows(pool: pg.Pool, day: number): Promise<[all: number, active: number]> {
  const { rows } = await pool.query<{ n: string; a: string }>(
    'SELECT count(*) AS n, count(*) FILTER (WHERE last_active = $1) AS a FROM laurel_rollup_users', [day]);
  return [Number(rows[0].n), Number(rows[0].a)];
}

async function measure(
  pool: pg.Pool, pid: number, archive: LogArchive, known: KnownUsers, scenario: string, users: number[], roll: boolean, cursors: Map<number, string>, day: number,
): Promise<Measured> {
  const passes = passesOf(users, roll, cursors, day * DAY_MS + 3_600_000);
  const rowsBefore = await userRows(pool, day);
  const walBefore = await walLsn(pool);
  const ticks = backendTicks(pid);
  const started = performance.now();
  for (const { batches, rollup } of passes) {
    if (!(await archive.commit(batches, [rollupStep(PREFIX, rollup, known)]))) throw new Error('a cursor moved under the bench');
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = (backendTicks(pid) - ticks) * (microsPerTick() ?? 10_000);
  const wal = Number((await pool.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS b', [walBefore])).rows[0].b);
  const rowsAfter = await userRows(pool, day);
  return {
    scenario, events: users.length, transactions: passes.length, seconds,
    cpuUsPerEvent: cpu / users.length, walBytesPerEvent: wal / users.length,
    newUserRows: rowsAfter[0] - rowsBefore[0], rowsActiveNow: rowsAfter[1] - rowsBefore[1] - (rowsAfter[0] - rowsBefore[0]),
  };
}

/** The population: POPULATION users first seen 30 days ago, last active yesterday. */
async function populate(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO laurel_rollup_users (prefix, tenant, user_id, first_ms, control, last_active, retained)
     SELECT $1, $2, 'user-' || n, $3::bigint, false, $4::int, NULL FROM generate_series(0, $5::int - 1) AS n`,
    [PREFIX, TENANT, (TODAY - 30) * DAY_MS, TODAY - 1, POPULATION],
  );
  await pool.query('VACUUM ANALYZE laurel_rollup_users');
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const admin = await connectAdmin(serverUrl);
  const db = await createDatabase(admin, serverUrl);
  let pool: pg.Pool | null = null;
  try {
    const settings = loadSettings({ ...process.env, DATABASE_URL: db.url, LAUREL_PREFIX: PREFIX });
    pool = await connectPostgres(settings, { max: 1, waitMs: 5000, statementMs: 0 });
    const pid = (await pool.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p;
    const archive = new LogArchive(pool, PREFIX);
    // What the drainer's rollups know of the users' rows (src/engine/log-drain/analytics.ts keeps one per drainer).
    const known = new KnownUsers();
    const cursors = new Map<number, string>();
    console.log(`populating ${POPULATION.toLocaleString('en')} users...`);
    await populate(pool);
    const returning = usersOf(EVENTS, true, 1);
    const distinct = new Set(returning).size;
    const results: Measured[] = [];
    results.push(await measure(pool, pid, archive, known, 'archive', usersOf(EVENTS, true, 2), false, cursors, TODAY - 2));
    results.push(await measure(pool, pid, archive, known, 'launch day', usersOf(EVENTS, false, 3), true, cursors, TODAY));
    results.push(await measure(pool, pid, archive, known, 'returning, first today', returning, true, cursors, TODAY));
    results.push(await measure(pool, pid, archive, known, 'returning, first next day, known', returning, true, cursors, TODAY + 1));
    results.push(await measure(pool, pid, archive, known, 'returning, again that day', returning, true, cursors, TODAY + 1));
    const base = results[0].cpuUsPerEvent;
    console.log(`\n${EVENTS.toLocaleString('en')} events a scenario, ${PASS_EVENTS} a drain pass; the returning users' events come from ` +
      `${distinct.toLocaleString('en')} users of ${POPULATION.toLocaleString('en')}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    console.log('| scenario | transactions | s | backend CPU µs/event | over the archive | WAL bytes/event | user rows inserted | updated |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of results) {
      console.log(`| ${r.scenario} | ${r.transactions} | ${r.seconds.toFixed(1)} | ${r.cpuUsPerEvent.toFixed(1)} | ` +
        `${r === results[0] ? '' : `+${(r.cpuUsPerEvent - base).toFixed(1)}`} | ${r.walBytesPerEvent.toFixed(0)} | ${r.newUserRows.toLocaleString('en')} | ${r.rowsActiveNow.toLocaleString('en')} |`);
    }
  } finally {
    await pool?.end().catch(() => undefined);
    await dropDatabase(admin, db.name).catch(() => undefined);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
