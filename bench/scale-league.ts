/**
 * `npm run bench:scale-league` (bench/README.md, "A league of a million"): a weekly league of
 * BENCH_LEAGUE_USERS (1,000,000) users in cohorts of 30 over five tiers, on a redis-server of the
 * bench's own, under `laurel start` with the full scenario of `laurel-system` (its capped board of
 * 1,000 too) and the league's board beside it. It measures
 *   1. the finalisation of a run of that many users, with no load: from the moment the board is
 *      made active (the workers' pass every 5 s finds its run final) to the run recorded final;
 *   2. the same finalisation again on a second league generated alike, under the event load: the
 *      time, and the event path's requests a second in slices of BENCH_LEAGUE_SLICE seconds while
 *      it runs against the slices after it (same process, same boards);
 *   3. the event path with the league (its finalised million behind it, every user of the load new
 *      to the current run, so each first event joins a cohort) against `laurel-system` (the same
 *      scenario, the plain board only) and `plain-weekly` (the same weekly board without a league),
 *      BENCH_ROUNDS rounds, the order rotated round by round;
 *   4. the same three, fresh, with the load's users settled in the run first (a settled week).
 * BENCH_LEAGUE_PARTS chooses the parts. Writes bench/results/scale-league.json (a run of some parts:
 * scale-league-<parts>.json, e.g. scale-league-settled.json).
 *
 * The generation writes, for the run to finalise (the run before the current one: the board is
 * created inactive, starting 9 days ago, and the workers skip an inactive board), what the
 * placement of each user's first event writes (src/engine/leaderboards/league-place.ts): the
 * user's hash (`id`, and `lg:<board id>` '<tier>|<run>|<cohort>', src/redis/leagues.ts
 * leagueText); each tier's cohorts hash (`u:<user id>` -> cohort, `o` the open cohort, `n` its
 * users: lua/leagueJoin-1.lua); each cohort's ranking, members, sequences and `entered` count
 * (lua/leaderboardRank-8.lua, members src/redis/rankings.ts memberOf); and the board's own ranking
 * of the run, which ranks everyone. Users fill the cohorts of their tier in order, as joiners do.
 * Left out: the users' other fields (totals, streaks, points: not read by the finalisation) and
 * their history lists.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { orderOf } from '../src/domain/leaderboards/runs.js';
import { Keys } from '../src/redis/keys.js';
import { leagueField, leagueText } from '../src/redis/leagues.js';
import { memberOf } from '../src/redis/rankings.js';
import { loadSettings } from '../src/lib/settings.js';
import { startOwnRedis, usedMemory } from './own-redis.js';
import { busiest, commandStats } from './redis.js';
import { connectPostgres, dropDatabase } from './postgres.js';
import { stopAll } from './processes.js';
import { ticks } from './cpu.js';
import {
  abortOnSignals, CONNECTIONS, DURATION_S, envNumber, getJson, launch, log, median, pass, round1, round2, ROUNDS, sendJson, shutdown, tickUs, USERS as PASS_USERS, WARMUP_S, type Launcher, type PassResult, type Running,
} from './scale-pass.js';
import { DEFAULT_DATABASE_URL, gitCommit, laurelSystem, ROOT } from './variants.js';

const USERS = envNumber('BENCH_LEAGUE_USERS', 1_000_000);
const SLICE_S = Math.max(1, envNumber('BENCH_LEAGUE_SLICE', 4));
/**
 * The settled event path's warm-up: the weekly boards' load until this share of the round's users
 * is placed in the run (at most SETTLE_MAX_S seconds); `laurel-system`'s, SETTLE_S seconds.
 */
const SETTLED_SHARE = 0.9;
const SETTLE_MAX_S = envNumber('BENCH_LEAGUE_SETTLE_MAX', 180);
const SETTLE_S = envNumber('BENCH_LEAGUE_SETTLE', 45);
/** The parts, in the order they run: finalise (1), loaded (2), launch (3), settled (4). */
const PART_NAMES = ['finalise', 'loaded', 'launch', 'settled'];
/** The parts to run (all by default). */
const PARTS = new Set((process.env.BENCH_LEAGUE_PARTS || PART_NAMES.join(',')).split(',').map((x) => x.trim()));
const COHORT = 30;
const BATCH = 1000;
const TENANT = '_';
const DAY_MS = 86_400_000;
/** Five tiers, lowest first, and the share of the users in each. */
const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 7, demote: 0, share: 0.4 },
  { key: 'silver', name: 'Silver', promote: 5, demote: 5, share: 0.25 },
  { key: 'gold', name: 'Gold', promote: 5, demote: 5, share: 0.15 },
  { key: 'sapphire', name: 'Sapphire', promote: 5, demote: 5, share: 0.12 },
  { key: 'ruby', name: 'Ruby', promote: 0, demote: 5, share: 0.08 },
];

const idOf = (i: number): string => `lg-${i}`;
const hashOf = (i: number): number => Math.imul(i + 1, 2654435761) >>> 0;
const valueOf = (i: number): number => 1 + (hashOf(i) % 500);
function tierOf(i: number): number {
  const x = (hashOf(i ^ 0x5bd1e995) % 10_000) / 10_000;
  let sum = 0;
  for (const [t, tier] of TIERS.entries()) {
    sum += tier.share;
    if (x < sum) return t;
  }
  return TIERS.length - 1;
}

const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * A weekly league board, inactive (the workers leave it alone until it is made active), whose run
 * before the current one is final; without `league`, the same board plain and active.
 */
async function createLeague(r: Running, key: string, league = true): Promise<{ id: string; run: string }> {
  const start = dateOf(Date.now() - 9 * DAY_MS);
  const created = await sendJson<{ created: { id: string }[]; issues: unknown[] }>(r, 'POST', '/admin/v1/leaderboards', [{
    name: `League ${key}`, key, rankBy: 'metric', metricKey: 'lessons', maxParticipants: null, start, runUnit: 'day', runInterval: 7,
    ...(league ? {
      status: 'inactive', league: { cohortSize: COHORT, tiers: TIERS.map(({ key: k, name, promote, demote }) => ({ key: k, name, promote, demote })) },
    } : { status: 'active' }),
  }], 201);
  if (created.created.length !== 1) throw new Error(`creating the league failed: ${JSON.stringify(created)}`);
  return { id: created.created[0].id, run: start };
}

/** Writes `n` users' places in the league's run (above): users, tiers' cohorts, cohorts' rankings, the board's ranking. */
async function generateLeague(redis: Redis, keys: Keys, boardId: string, run: string, n: number, signal: AbortSignal): Promise<{ seconds: number; cohorts: number }> {
  const t0 = Date.now();
  const filled = TIERS.map(() => 0);
  const board = keys.leaderboard(TENANT, boardId, run, '');
  const field = leagueField(boardId);
  const runMs = Date.parse(`${run}T00:00:00Z`);
  let inflight: Promise<unknown>[] = [];
  for (let from = 0; from < n; from += BATCH) {
    signal.throwIfAborted();
    const p = redis.pipeline();
    const tiers = new Map<number, string[]>();
    const cohorts = new Map<string, { tier: number; n: number; zadd: (string | number)[]; members: string[]; sequences: string[] }>();
    const boardZadd: (string | number)[] = [];
    const boardMembers: string[] = [];
    const boardSequences: string[] = [];
    for (let i = from; i < Math.min(n, from + BATCH); i++) {
      const id = idOf(i);
      const tier = tierOf(i);
      const cohort = Math.floor(filled[tier]++ / COHORT);
      const ms = runMs + (i % 500_000) * 1000;
      const seq = `${ms}-${i % 1000}`;
      const member = memberOf(orderOf(ms, seq), id);
      p.hset(keys.forUser(TENANT, id).user, 'id', id, field, leagueText({ tier, run, cohort }));
      let t = tiers.get(tier);
      if (t === undefined) tiers.set(tier, (t = []));
      t.push(`u:${id}`, String(cohort));
      const ck = `${tier}.${cohort}`;
      let c = cohorts.get(ck);
      if (c === undefined) cohorts.set(ck, (c = { tier, n: cohort, zadd: [], members: [], sequences: [] }));
      c.zadd.push(valueOf(i), member);
      c.members.push(id, member);
      c.sequences.push(id, seq);
      boardZadd.push(valueOf(i), member);
      boardMembers.push(id, member);
      boardSequences.push(id, seq);
    }
    for (const [tier, fields] of tiers) p.hset(keys.leagueTier(TENANT, boardId, run, tier), ...fields);
    for (const c of cohorts.values()) {
      const k = keys.leagueCohort(TENANT, boardId, run, c.tier, c.n);
      p.zadd(k.ranking, ...c.zadd).hset(k.members, ...c.members).hset(k.sequences, ...c.sequences).hincrby(k.stats, 'entered', c.zadd.length / 2);
    }
    p.zadd(board.ranking, ...boardZadd).hset(board.members, ...boardMembers).hset(board.sequences, ...boardSequences).hincrby(board.stats, 'entered', boardZadd.length / 2);
    inflight.push(p.exec());
    if (inflight.length >= 4) {
      await Promise.all(inflight);
      inflight = [];
    }
    if (from % 200_000 === 0 && from > 0) log(`  generated ${from.toLocaleString('en')} (${round1((Date.now() - t0) / 1000)} s)`);
  }
  await Promise.all(inflight);
  // Each tier's open cohort (its last) and how many it holds.
  for (const [tier, count] of filled.entries()) {
    if (count === 0) continue;
    await redis.hset(keys.leagueTier(TENANT, boardId, run, tier), 'o', Math.floor((count - 1) / COHORT), 'n', ((count - 1) % COHORT) + 1);
  }
  return { seconds: round1((Date.now() - t0) / 1000), cohorts: filled.reduce((s, c) => s + Math.ceil(c / COHORT), 0) };
}

/** Makes the board active: the workers' next pass finalises its run. */
async function activate(r: Running, id: string): Promise<number> {
  const t = Date.now();
  await sendJson(r, 'PATCH', '/admin/v1/leaderboards', [{ id, status: 'active' }], 200);
  return t;
}

/** Polls until the run is recorded final; answers the seconds since `from`. */
async function untilFinal(redis: Redis, keys: Keys, boardId: string, run: string, from: number, signal: AbortSignal): Promise<number> {
  const state = keys.leaderboardIndex(TENANT, boardId).state;
  for (;;) {
    signal.throwIfAborted();
    if ((await redis.hexists(state, `f:${run}`)) === 1) return round1((Date.now() - from) / 1000);
    if (Date.now() - from > 900_000) throw new Error('the finalisation did not end within 15 minutes');
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Every user moved: their place carries the run's outcome (lua/leagueMove-1.lua), read on a sample. */
async function checkMoved(redis: Redis, keys: Keys, boardId: string, run: string, n: number): Promise<void> {
  const step = Math.max(1, Math.floor(n / 1000));
  for (let i = 0; i < n; i += step) {
    const held = await redis.hget(keys.forUser(TENANT, idOf(i)).user, leagueField(boardId));
    if (held === null || !held.endsWith(`|${run}`)) throw new Error(`user ${idOf(i)} not moved by ${run}: ${held}`);
  }
}

type PathName = 'laurel-system' | 'plain-weekly' | 'league';
const PATH_NAMES: PathName[] = ['laurel-system', 'plain-weekly', 'league'];

/**
 * The event path of the three installations, BENCH_ROUNDS rounds in rotated order: each started by
 * `start`, a warm-up of `warmupS` on the round's users, a measured pass, then stopped (its keys and
 * database deleted when `fresh`). Before the measured pass, the weekly board's participants (the
 * round's users placed in the run by the warm-up) are read: the share of the pass's events of
 * users placed already.
 */
async function eventPaths(
  at: Launcher, redisPids: number[], signal: AbortSignal, warmupS: number, settled: boolean, start: (name: PathName) => Promise<Running>, fresh: (name: PathName) => boolean,
  boardKey: (name: PathName) => string,
): Promise<Record<string, unknown>> {
  const redis = new Redis(at.redisUrl);
  const passes: Record<PathName, (PassResult & { round: number; placedBefore: number | null; settleS: number; commands: { command: string; callsPerEvent: number; usPerEvent: number }[] })[]> = { 'laurel-system': [], 'plain-weekly': [], league: [] };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = PATH_NAMES.map((_, i) => PATH_NAMES[(i + round - 1) % PATH_NAMES.length]);
      for (const name of order) {
        const r = await start(name);
        try {
          // The warm-up: `warmupS` seconds; settled, the weekly boards' until SETTLED_SHARE of the
          // round's users are placed in the run (in slices of 10 s, at most SETTLE_MAX_S).
          const placed = async () => (await getJson<{ participants: number }>(r, `/api/leaderboards/${boardKey(name)}?limit=1`)).participants;
          const settling = settled && name !== 'laurel-system';
          let settleS = 0;
          for (let slice = 0; settleS < (settling ? SETTLE_MAX_S : warmupS); slice++) {
            if (settling && (await placed()) >= SETTLED_SHARE * PASS_USERS) break;
            const s = settling ? 10 : warmupS;
            await pass(r, { round, tag: `league-${round}-${name}-settle-${slice}`, warmupS: 0, durationS: s, connections: CONNECTIONS, redisPids }, signal);
            settleS += s;
          }
          const placedBefore = name === 'laurel-system' ? null : await placed();
          const statsBefore = await commandStats(redis);
          const p = await pass(r, { round, tag: `league-${round}-${name}`, warmupS: 0, durationS: DURATION_S, connections: CONNECTIONS, redisPids }, signal);
          // What Redis spent its time on over the pass, a command's calls and µs an event.
          const events = p.reqPerS * DURATION_S;
          const commands = busiest(statsBefore, await commandStats(redis), 10)
            .map((c) => ({ command: c.command, callsPerEvent: round2(c.calls / events), usPerEvent: round2(c.usec / events) }));
          passes[name].push({ round, placedBefore, settleS, ...p, commands });
          log(`round ${round} ${name.padEnd(14)} ${String(p.reqPerS).padStart(6)} req/s  p99 ${p.p99Ms} ms  non-2xx ${p.non2xx}  cpu µs/event api ${p.cpuUs.api} redis ${p.cpuUs.redis}  placed before ${placedBefore ?? '-'} after ${settleS} s  load ${p.loadAverage}`);
          log(`          Redis's busiest, an event: ${commands.map((c) => `${c.command} ${c.callsPerEvent}× ${c.usPerEvent} µs`).join(', ')}`);
        } finally {
          await shutdown(r, at, redis, fresh(name));
        }
      }
    }
  } finally {
    redis.disconnect();
  }
  const summary = (reference: PathName) => {
    const ratios = passes.league.map((p) => p.reqPerS / passes[reference].find((q) => q.round === p.round)!.reqPerS);
    log(`league / ${reference}: median ${round2(median(ratios) * 100)}% (per round ${ratios.map((x) => `${round1(x * 100)}%`).join(', ')})`);
    return { ratioMedian: round2(median(ratios) * 100), ratios: ratios.map((x) => round2(x * 100)) };
  };
  return {
    warmupS,
    reqPerS: Object.fromEntries(PATH_NAMES.map((n) => [n, median(passes[n].map((p) => p.reqPerS))])),
    cpuUsPerEvent: Object.fromEntries(PATH_NAMES.map((n) => [n, { api: median(passes[n].map((p) => p.cpuUs.api)), redis: median(passes[n].map((p) => p.cpuUs.redis)) }])),
    ofLaurelSystem: summary('laurel-system'), ofPlainWeekly: summary('plain-weekly'), passes,
  };
}

async function main(): Promise<void> {
  const unknown = [...PARTS].filter((x) => !PART_NAMES.includes(x));
  if (unknown.length > 0) throw new Error(`BENCH_LEAGUE_PARTS: unknown part(s) ${unknown.join(', ')} (${PART_NAMES.join(', ')})`);
  // The launch part's league is the installation the loaded part finalised.
  if (PARTS.has('launch') && !PARTS.has('loaded')) throw new Error('BENCH_LEAGUE_PARTS: launch needs loaded (its league is the one loaded finalises)');
  const signal = abortOnSignals();
  const databaseServer = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const postgres = await connectPostgres(databaseServer);
  const own = await startOwnRedis();
  const redis = new Redis(own.url);
  const at: Launcher = { redisUrl: own.url, postgres, databaseServer };
  const partitions = loadSettings({}).partitions;
  const out: Record<string, unknown> = { when: new Date().toISOString(), commit: gitCommit(), users: USERS, cohortSize: COHORT, tiers: TIERS.length, rounds: ROUNDS, durationS: DURATION_S, sliceS: SLICE_S };
  let kept: Running | null = null;
  try {
    kept = await launch(laurelSystem, at, signal);
    const keys = new Keys(kept.session.prefix!, partitions);
    const redisPids = [own.pid];

    // 1. Finalisation alone.
    if (PARTS.has('finalise')) {
      const quiet = await createLeague(kept, 'league-quiet');
      const before = await usedMemory(redis);
      log(`generating ${USERS.toLocaleString('en')} users of league-quiet's run ${quiet.run}`);
      const g1 = await generateLeague(redis, keys, quiet.id, quiet.run, USERS, signal);
      const after = await usedMemory(redis);
      log(`  ${g1.cohorts.toLocaleString('en')} cohorts in ${g1.seconds} s; used_memory ${(before / 1e6).toFixed(0)} MB -> ${(after / 1e6).toFixed(0)} MB`);
      const laurelPid = kept.session.child.proc.pid;
      const cpu0 = { laurel: ticks(laurelPid), redis: ticks(own.pid) };
      const t1 = await activate(kept, quiet.id);
      const quietS = await untilFinal(redis, keys, quiet.id, quiet.run, t1, signal);
      // Where the time went: the CPU of laurel's process (the workers finalising) and of Redis over it.
      const quietCpuS = { laurel: round1(((ticks(laurelPid) - cpu0.laurel) * tickUs()) / 1e6), redis: round1(((ticks(own.pid) - cpu0.redis) * tickUs()) / 1e6) };
      log(`  CPU over it: laurel (api and workers) ${quietCpuS.laurel} s, Redis ${quietCpuS.redis} s`);
      await checkMoved(redis, keys, quiet.id, quiet.run, USERS);
      log(`finalised ${USERS.toLocaleString('en')} users with no load in ${quietS} s (from the board made active; the workers look every 5 s)`);
      out.generation = { seconds: g1.seconds, cohorts: g1.cohorts, bytesPerUser: Math.round((after - before) / USERS) };
      out.quietFinalisationS = quietS;
      out.quietFinalisationCpuS = quietCpuS;
      // Only the league under load from here on.
      await sendJson(kept, 'DELETE', `/admin/v1/leaderboards?ids=${quiet.id}`, undefined, 200).catch(async () => {
        await sendJson(kept!, 'PATCH', '/admin/v1/leaderboards', [{ id: quiet.id, status: 'inactive' }], 200);
      });
    }

    // 2. Finalisation under the event load.
    if (PARTS.has('loaded')) {
      const loaded = await createLeague(kept, 'league');
      log(`generating ${USERS.toLocaleString('en')} users of league's run ${loaded.run}`);
      const g2 = await generateLeague(redis, keys, loaded.id, loaded.run, USERS, signal);
      log(`  ${g2.cohorts.toLocaleString('en')} cohorts in ${g2.seconds} s`);
      // Warm: the load's code paths before the slices are timed.
      await pass(kept, { round: 0, tag: 'league-warm', warmupS: 0, durationS: 2, connections: CONNECTIONS, redisPids }, signal);
      const t2 = await activate(kept, loaded.id);
      let finalS: number | null = null;
      const finalised = untilFinal(redis, keys, loaded.id, loaded.run, t2, signal).then((s) => { finalS = s; return s; });
      const slices: (PassResult & { slice: number; phase: 'during' | 'straddling' | 'after' })[] = [];
      let after2 = 0;
      for (let slice = 1; after2 < 3; slice++) {
        const wasFinal = finalS !== null;
        const p = await pass(kept, { round: 100 + slice, tag: `league-slice-${slice}`, warmupS: 0, durationS: SLICE_S, connections: CONNECTIONS, redisPids }, signal);
        const phase = wasFinal ? 'after' : finalS === null ? 'during' : 'straddling';
        if (phase === 'after') after2++;
        slices.push({ slice, phase, ...p });
        log(`slice ${slice} ${phase.padEnd(10)} ${String(p.reqPerS).padStart(6)} req/s  p99 ${p.p99Ms} ms  cpu µs/event api+workers ${p.cpuUs.api} redis ${p.cpuUs.redis}  load ${p.loadAverage}`);
      }
      await finalised;
      await checkMoved(redis, keys, loaded.id, loaded.run, USERS);
      const during = slices.filter((s) => s.phase === 'during').map((s) => s.reqPerS);
      const afterRates = slices.filter((s) => s.phase === 'after').map((s) => s.reqPerS);
      out.loaded = {
        finalisationS: finalS, slices,
        duringMedian: during.length ? median(during) : null, afterMedian: median(afterRates),
        duringOfAfter: during.length ? round2((median(during) / median(afterRates)) * 100) : null,
      };
      log(`finalised under load in ${finalS} s; event path during / after: ${JSON.stringify(out.loaded, (k, v) => (k === 'slices' ? undefined : v))}`);
    }

    // 3. The event path with the league against laurel-system and against the same weekly board
    // without a league, the order rotated: the load's users new to the run.
    await shutdown(kept, at, null, false);
    const keptAs = { prefix: kept.session.prefix!, apiKey: kept.session.apiKey, database: kept.database };
    kept = null;
    if (PARTS.has('launch')) {
      out.eventPath = await eventPaths(at, redisPids, signal, WARMUP_S, false, async (name) => {
        const r = await launch(laurelSystem, at, signal, name === 'league' ? keptAs : undefined);
        if (name === 'plain-weekly') await createLeague(r, 'weekly', false);
        return r;
      }, (name) => name !== 'league', (name) => (name === 'league' ? 'league' : 'weekly'));
    }
    await dropDatabase(postgres, keptAs.database.name);
    // 4. The same three with the load's users settled: a warm-up of BENCH_LEAGUE_SETTLE seconds on
    // the round's users before the measured pass, on fresh installations (the league's run before
    // the current one empty), so most of the measured events are of users placed in the run.
    if (PARTS.has('settled')) {
      out.settled = await eventPaths(at, redisPids, signal, SETTLE_S, true, async (name) => {
        const r = await launch(laurelSystem, at, signal);
        if (name === 'plain-weekly') await createLeague(r, 'weekly', false);
        if (name === 'league') await activate(r, (await createLeague(r, 'weekly')).id);
        return r;
      }, () => true, () => 'weekly');
    }
  } finally {
    if (kept !== null) {
      await shutdown(kept, at, null, false);
      await dropDatabase(postgres, kept.database.name);
    }
    await stopAll();
    redis.disconnect();
    await own.stop();
    await postgres.end();
  }
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  // A run of some parts is kept under a name of its own (`scale-league-settled.json`): it does not
  // replace a run of all four.
  const parts = PART_NAMES.every((x) => PARTS.has(x)) ? '' : `-${PART_NAMES.filter((x) => PARTS.has(x)).join('-')}`;
  writeFileSync(`${ROOT}bench/results/scale-league${parts}.json`, `${JSON.stringify(out, null, 2)}\n`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  await stopAll();
  process.exit(1);
});
