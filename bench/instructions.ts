/**
 * Redis instructions per event, counted rather than timed (`npm run bench:instructions`): each
 * selected variant runs against a redis-server of its own under valgrind's callgrind, on one fixed
 * sequence of events, so the figure does not move with the machine. (The requests/s of
 * `npm run bench` do, by a tenth and more on the shared development machine; this is how a change
 * to the event path's Redis work is judged, bench/README.md.)
 *
 * Per variant: start `valgrind --tool=callgrind --instr-atstart=no redis-server` on a free port,
 * start the variant's server on it and prepare it as the bench does, send WARM_USERS users' first
 * events, then, with callgrind counting, the measured sequence (SEGMENTS below: returning users,
 * first events, and keyed events, half of them replays) over 8 keep-alive connections, dumping the
 * count after each part; stop counting, stop both, and read the counts from callgrind's output.
 * Reported per event: every instruction Redis ran in the window (reading and parsing commands, the
 * scripts, phase 2, the entry gates' GETs, replies) over the events sent, and the same for a new
 * user's first event and a returning user's alone.
 *
 * Needs valgrind and redis-server on PATH (REDIS_SERVER names another binary, e.g. one built with
 * symbols for callgrind_annotate); BENCH_VARIANTS selects (default: the laurel variants and
 * trivial-script). Writes results/instructions.md, unless BENCH_VARIANTS selects. About 8 s a
 * variant.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { freePort, start, stop, stopAll, waitReady, type Child } from './processes.js';
import { connectRedis } from './redis.js';
import { gitCommit, ROOT, VARIANTS, type Variant } from './variants.js';

const HOST = '127.0.0.1';
const WARM_USERS = 500;
const CONNECTIONS = 8;

type Events = [number, string][];
const users = (from: number, count: number): Events => Array.from({ length: count }, (_, n): [number, string] => [from + n, '']);

/**
 * The measured events ([user number, idempotency key or '']), in parts sent one after the other
 * and counted each on its own: a new user's first event and a returning user's (one on the same
 * day, in a period the streak covers already) cost Redis differently, and the bench's load is
 * mostly first events (each round starts with no users; 100,000 of them, drawn at random).
 */
const SEGMENTS: { part: 'returning' | 'new' | 'keyed'; events: Events }[] = [
  { part: 'returning', events: users(0, 500) }, // warmed
  { part: 'new', events: users(500, 500) },
  { part: 'returning', events: users(500, 500) },
  // Keyed events, each key sent twice: a first use, then a replay (HTTP 202).
  { part: 'keyed', events: Array.from({ length: 200 }, (_, n): [number, string] => [n % 100, `key-${n % 100}`]) },
];
const MEASURED: Events = SEGMENTS.flatMap((s) => s.events);

/** valgrind's gdbserver names its pipes after $USER and $HOST: callgrind_control must agree. */
function vgEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.HOST;
  return env;
}

function need(command: string, args: string[], hint: string): void {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.error) throw new Error(`${command} is not on PATH: ${hint}`);
}

function callgrindControl(pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { env: vgEnv(), stdio: 'ignore' });
}

async function redisUp(port: number, child: Child): Promise<Redis> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`redis-server under valgrind exited:\n${child.output.join('\n')}`);
    try {
      return await connectRedis(`redis://${HOST}:${port}`);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/** Script calls so far (FCALL and EVALSHA), from INFO commandstats. */
async function scriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:fcall|evalsha|eval):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

/** Sends events over keep-alive connections; fails on any answer outside 2xx. */
async function send(url: string, apiKey: string, events: [number, string][]): Promise<Record<string, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const target = new URL(url);
  const statuses: Record<string, number> = {};
  const one = ([user, key]: [number, string]) => new Promise<void>((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': apiKey };
    if (key !== '') headers['idempotency-key'] = key;
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status < 200 || status > 299) reject(new Error(`HTTP ${status}: ${body}`));
        else resolve();
      });
    });
    req.on('error', reject);
    req.end(`{"user":{"id":"user-${user}"},"value":1}`);
  });
  let next = 0;
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (next < events.length) await one(events[next++]);
    }));
  } finally {
    agent.destroy();
  }
  return statuses;
}

/**
 * The instructions callgrind counted: in all (every output file it wrote), and per dump
 * (callgrind.out.<pid>.<n>, in the order of n; the file written at exit has no number).
 */
function counted(dir: string): { total: number; dumps: number[] } {
  let total = 0;
  const dumps: [number, number][] = [];
  for (const file of readdirSync(dir)) {
    const m = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
    if (!m) continue;
    total += Number(m[1]);
    const n = /\.(\d+)\.(\d+)$/.exec(file);
    if (n) dumps.push([Number(n[2]), Number(m[1])]);
  }
  return { total, dumps: dumps.sort((a, b) => a[0] - b[0]).map(([, count]) => count) };
}

interface Counted {
  variant: string;
  instructionsPerEvent: number;
  /** Per event of a new user's first events, and of a returning user's in a covered period. */
  newUser: number;
  returning: number;
  scriptCallsPerEvent: number;
  statuses: Record<string, number>;
}

async function measure(variant: Variant, redisServer: string): Promise<Counted> {
  const dir = mkdtempSync(join(tmpdir(), 'laurel-callgrind-'));
  const port = await freePort(HOST);
  const redisChild = start('redis-server (callgrind)', 'valgrind', [
    '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dir}/callgrind.out.%p`,
    redisServer, '--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no',
  ], { env: vgEnv(), keepLines: 50 });
  const signal = new AbortController().signal;
  let redis: Redis | null = null;
  let server: Child | null = null;
  try {
    redis = await redisUp(port, redisChild);
    const session = variant.launch({ host: HOST, port: await freePort(HOST), redisUrl: `redis://${HOST}:${port}` });
    server = session.child;
    await waitReady(session.child, session.readyUrl, signal, 120_000);
    await variant.prepare?.(session, signal);
    await send(session.eventUrl, session.apiKey, Array.from({ length: WARM_USERS }, (_, n): [number, string] => [n, '']));
    const pid = redisChild.proc.pid!;
    const before = await scriptCalls(redis);
    const statuses: Record<string, number> = {};
    callgrindControl(pid, '-i', 'on');
    // One dump per part: each holds what Redis ran while that part was sent.
    for (const { events } of SEGMENTS) {
      for (const [status, n] of Object.entries(await send(session.eventUrl, session.apiKey, events))) statuses[status] = (statuses[status] ?? 0) + n;
      callgrindControl(pid, '-d');
    }
    callgrindControl(pid, '-i', 'off');
    const calls = await scriptCalls(redis) - before;
    await stop(session.child);
    server = null;
    await redis.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    await redisChild.exited;
    const { total, dumps } = counted(dir);
    if (dumps.length !== SEGMENTS.length) throw new Error(`callgrind wrote ${dumps.length} dumps for ${SEGMENTS.length} parts`);
    const per = (part: string) => {
      let sum = 0;
      let events = 0;
      SEGMENTS.forEach((s, i) => { if (s.part === part) { sum += dumps[i]; events += s.events.length; } });
      return sum / events;
    };
    return {
      variant: variant.name, instructionsPerEvent: total / MEASURED.length, newUser: per('new'), returning: per('returning'),
      scriptCallsPerEvent: calls / MEASURED.length, statuses,
    };
  } finally {
    redis?.disconnect();
    if (server) await stop(server);
    await stop(redisChild, 5000);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  need('valgrind', ['--version'], 'install it (Debian: apt-get install valgrind)');
  const redisServer = process.env.REDIS_SERVER || 'redis-server';
  need(redisServer, ['--version'], 'install Redis 7 or set REDIS_SERVER');
  const names = (process.env.BENCH_VARIANTS || 'trivial-script,laurel-event,laurel-streaks,laurel-points,laurel-features')
    .split(',').map((s) => s.trim()).filter(Boolean);
  const variants = names.map((n) => {
    const v = VARIANTS.find((x) => x.name === n);
    if (!v) throw new Error(`BENCH_VARIANTS: unknown ${n}; known: ${VARIANTS.map((x) => x.name).join(', ')}`);
    // The count is of one api's Redis work on a fixed sequence; the workers' drain runs on a timer.
    if (v.postgres) throw new Error(`BENCH_VARIANTS: ${n} runs laurel's workers; bench:instructions counts the api alone (laurel-api has its scenario)`);
    return v;
  });
  const version = execFileSync(redisServer, ['--version'], { encoding: 'utf8' }).trim();
  const results: Counted[] = [];
  for (const v of variants) {
    process.stdout.write(`${v.name}: counting\n`);
    const r = await measure(v, redisServer);
    process.stdout.write(`  ${Math.round(r.instructionsPerEvent).toLocaleString('en-US')} instructions per event, ` +
      `${Math.round(r.newUser).toLocaleString('en-US')} for a new user's first, ${Math.round(r.returning).toLocaleString('en-US')} for a returning user's, ` +
      `${r.scriptCallsPerEvent.toFixed(2)} script calls per event, ${JSON.stringify(r.statuses)}\n`);
    results.push(r);
  }
  const commit = gitCommit().slice(0, 12);
  const md = [
    '# laurel bench: Redis instructions per event',
    '',
    `Counted ${new Date().toISOString()} with callgrind (${version}; commit ${commit}): ${WARM_USERS} users' first events to ` +
      `warm up, then ${MEASURED.length.toLocaleString('en-US')} events counted (those 500 users return, 500 new users, who then return, then 100 keys ` +
      `sent twice), ${CONNECTIONS} connections. Every instruction Redis ran in the window, over the events sent; then the same for the new ` +
      `users' first events alone, and for the returning users' events alone (the same day: the streak's period is covered already).`,
    '',
    '| variant | instructions per event | a new user\'s first event | a returning user\'s event | script calls per event | responses |',
    '|---|---:|---:|---:|---:|---|',
    ...results.map((r) => `| ${r.variant} | ${Math.round(r.instructionsPerEvent).toLocaleString('en-US')} | ` +
      `${Math.round(r.newUser).toLocaleString('en-US')} | ${Math.round(r.returning).toLocaleString('en-US')} | ` +
      `${r.scriptCallsPerEvent.toFixed(2)} | ${Object.entries(r.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')} |`),
    '',
  ].join('\n');
  process.stdout.write(`\n${md}\n`);
  // A subset is a quick look: the file keeps the full table.
  if (process.env.BENCH_VARIANTS) {
    process.stdout.write('BENCH_VARIANTS selects a subset: bench/results/instructions.md left alone\n');
  } else {
    writeFileSync(`${ROOT}bench/results/instructions.md`, md);
    process.stdout.write('written: bench/results/instructions.md\n');
  }
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  await stopAll();
  process.exit(1);
});
