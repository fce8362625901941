/**
 * `npm run bench:scale-board` (bench/README.md, "A board of ten million"): the full scenario's
 * events (three achievements, a daily streak, the XP points trigger, a leaderboard: as
 * `laurel-system` runs them, under `npm start`'s processes: one api process a core, the workers in
 * the primary, BENCH_SCALE_API_PROCESSES to say otherwise) placing into an uncapped board of
 * BENCH_SCALE_PARTICIPANTS (10,000,000) generated participants, against the same scenario on a
 * board capped at 1,000 and on an uncapped board that starts empty, on a redis-server of the
 * bench's own; then an uncapped board of BENCH_SCALE_CLUSTER_PARTICIPANTS (3,000,000) spread over 3
 * shards against one of 1 shard, both on a 3-primary Cluster of the bench's own. Each round runs
 * every variant once, in an order rotated from round to round; each pass reads a user's rank and
 * percentile (`GET /api/leaderboards/top-learners?userId=<id>&limit=1`) BENCH_SCALE_READS times a
 * second beside the load, each read timed from its scheduled send. That load is wrk's closed loop,
 * which keeps the api busy: its requests a second are the variant's peak. Then, in the same
 * round, open-loop passes (bench/open-loop-client.ts) send the events at BENCH_SCALE_FRACTIONS
 * of that peak (0, 0.25, 0.5: 0 is the reads alone), each event timed from its scheduled send,
 * with the same reads beside them: a read's latency at a load the machine serves. Memory per participant:
 * Redis's `used_memory` before and after the generation. Writes bench/results/scale-board.json
 * (scale-board-single.json or scale-board-cluster.json for one part alone).
 *
 * The generation writes what lua/leaderboardRank-8.lua writes for a participant that entered the
 * run: the ranking's member ('<order>|<user id>', src/redis/rankings.ts memberOf, the order of
 * src/domain/leaderboards/runs.ts orderOf) with its value as the score, the members hash (user ->
 * member), the sequences hash (user -> the log entry id whose value the member holds) and the
 * run's `entered` count, in pipelined batches of 1,000 (one ZADD and two HSETs a batch), on the
 * keys src/redis/keys.ts names for the board's run (a shard's own on a sharded board, each user's
 * shard src/domain/leaderboards/shards.ts's). The one thing left out is each user's history list
 * (10,000,000 keys): its memory is measured on a sample of 100,000 lists and added to the figure.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Cluster, Redis } from 'ioredis';
import { orderOf } from '../src/domain/leaderboards/runs.js';
import { shardOfUser } from '../src/domain/leaderboards/shards.js';
import { Keys, type LeaderboardKeys } from '../src/redis/keys.js';
import { memberOf } from '../src/redis/rankings.js';
import { loadSettings } from '../src/lib/settings.js';
import { startRedisCluster } from '../test/support/redis-cluster.js';
import { startOwnRedis, usedMemory } from './own-redis.js';
import { connectPostgres, dropDatabase } from './postgres.js';
import { stopAll } from './processes.js';
import {
  abortOnSignals, CONNECTIONS, DURATION_S, envNumber, getJson, launch, log, median, openPass, pass, round1, round2, ROUNDS, shutdown, WARMUP_S,
  type Launcher, type OpenPassResult, type PassResult, type Reads, type Running,
} from './scale-pass.js';
import { DEFAULT_DATABASE_URL, gitCommit, laurel, ROOT, type Variant } from './variants.js';

const PARTICIPANTS = envNumber('BENCH_SCALE_PARTICIPANTS', 10_000_000);
const CLUSTER_PARTICIPANTS = envNumber('BENCH_SCALE_CLUSTER_PARTICIPANTS', 3_000_000);
const READS_PER_S = Math.max(1, envNumber('BENCH_SCALE_READS', 50));
const PARTS = (process.env.BENCH_SCALE_PARTS ?? 'single,cluster').split(',').map((s) => s.trim());
/** The open-loop event rates, as shares of the peak the closed-loop pass measured (0: the reads alone). */
const FRACTIONS = (process.env.BENCH_SCALE_FRACTIONS ?? '0,0.25,0.5').split(',').map((s) => Number(s.trim()));
if (FRACTIONS.some((f) => !Number.isFinite(f) || f < 0 || f > 1)) throw new Error(`BENCH_SCALE_FRACTIONS must be shares from 0 to 1, got "${process.env.BENCH_SCALE_FRACTIONS}"`);
/** `npm start`'s api processes: one a core (LAUREL_API_PROCESSES unset). */
const API_PROCESSES = Math.max(1, envNumber('BENCH_SCALE_API_PROCESSES', availableParallelism()));
const BATCH = 1000;
const HISTORY_SAMPLE = 100_000;
const BOARD = 'top-learners';

/** The i-th generated participant's id, value and when they reached it (deterministic). */
const idOf = (i: number): string => `scale-${i}`;
const valueOf = (i: number): number => 1 + ((Math.imul(i + 1, 2654435761) >>> 0) % 10_000);
const BASE_MS = Date.parse('2026-01-01T00:00:00Z');

/** The board's id and run (its start: a perpetual board has one run), read through the Admin API. */
async function boardRun(r: Running): Promise<{ id: string; run: string }> {
  const list = await getJson<{ id: string; key: string; start: string }[] | { leaderboards: { id: string; key: string; start: string }[] }>(r, '/admin/v1/leaderboards');
  const boards = Array.isArray(list) ? list : list.leaderboards;
  const lb = boards.find((b) => b.key === BOARD);
  if (lb === undefined) throw new Error(`board ${BOARD} not found`);
  return { id: lb.id, run: lb.start };
}

/**
 * Writes `n` participants into a run's rankings as lua/leaderboardRank-8.lua keeps them: ranking,
 * members, sequences, the `entered` count; each user in their shard's keys.
 */
async function generate(client: Redis | Cluster, keysOf: (shard: number) => LeaderboardKeys, shards: number, n: number, signal: AbortSignal): Promise<number> {
  const t0 = Date.now();
  const INFLIGHT = 4;
  const pending = new Set<Promise<unknown>>();
  for (let from = 0; from < n; from += BATCH) {
    signal.throwIfAborted();
    const count = Math.min(BATCH, n - from);
    const byShard = Array.from({ length: shards }, () => ({ zadd: [] as (string | number)[], members: [] as string[], sequences: [] as string[], entered: 0 }));
    for (let i = from; i < from + count; i++) {
      const id = idOf(i);
      const ms = BASE_MS + (i % 1_000_000) * 1000;
      const seq = `${ms}-${i % 1000}`;
      const member = memberOf(orderOf(ms, seq), id);
      const b = byShard[shards === 1 ? 0 : shardOfUser(id, shards)];
      b.zadd.push(valueOf(i), member);
      b.members.push(id, member);
      b.sequences.push(id, seq);
      b.entered++;
    }
    for (const [shard, b] of byShard.entries()) {
      if (b.entered === 0) continue;
      const k = keysOf(shard);
      // One shard's keys share a slot: one pipeline each, on a Cluster too.
      const p = client.pipeline().zadd(k.ranking, ...b.zadd).hset(k.members, ...b.members).hset(k.sequences, ...b.sequences).hincrby(k.stats, 'entered', b.entered).exec();
      const tracked: Promise<unknown> = p.then(() => pending.delete(tracked));
      pending.add(tracked);
    }
    if (pending.size >= INFLIGHT * shards) await Promise.race(pending);
    if (from % 1_000_000 === 0 && from > 0) log(`  generated ${from.toLocaleString('en')} (${round1((Date.now() - t0) / 1000)} s)`);
  }
  await Promise.all(pending);
  return (Date.now() - t0) / 1000;
}

/** Bytes a participant's history list takes (lua/leaderboardRank-8.lua's first entry), on a sample. */
async function historyBytes(redis: Redis, keys: LeaderboardKeys): Promise<number> {
  const before = await usedMemory(redis);
  for (let from = 0; from < HISTORY_SAMPLE; from += BATCH) {
    const p = redis.pipeline();
    for (let i = from; i < from + BATCH; i++) p.lpush(keys.history(`sample-${i}`), `${BASE_MS + i}|0|${i + 1}||${valueOf(i)}`);
    await p.exec();
  }
  const after = await usedMemory(redis);
  for (let from = 0; from < HISTORY_SAMPLE; from += BATCH) {
    await redis.del(...Array.from({ length: BATCH }, (_, j) => keys.history(`sample-${from + j}`)));
  }
  return (after - before) / HISTORY_SAMPLE;
}

/** A user's rank-and-percentile read of a generated participant: a 200 ranking them, with a percentile. */
function readsOf(n: number): Reads {
  return {
    perSecond: READS_PER_S,
    path: (i) => `/api/leaderboards/${BOARD}?userId=${idOf((Math.imul(i + 7, 40503) >>> 0) % n)}&limit=1`,
    expect: /"percentile":\d/,
  };
}

/** The capped board's reads: the same rate, the round's users (on the board or not: a 200 either way). */
function cappedReads(round: number): Reads {
  return { perSecond: READS_PER_S, path: (i) => `/api/leaderboards/${BOARD}?userId=u${round}-${(Math.imul(i + 7, 40503) >>> 0) % 100_000}&limit=1` };
}

interface Entry {
  name: string;
  variant: Variant;
  /** Generated participants (0: a fresh variant each round, keys and database deleted after). */
  participants: number;
  shards: number;
  kept?: { prefix: string; apiKey: string; database: { name: string; url: string } };
  generation?: { seconds: number; bytesBefore: number; bytesAfter: number };
  passes: (PassResult & { round: number; snapshotS: number | null })[];
  /** The open-loop passes, each round's after its closed-loop one. */
  open: (OpenPassResult & { round: number })[];
}

async function checkBoard(r: Running, n: number): Promise<void> {
  // laurel reads the generated board as its own: a participant's rank, the board's count.
  const i = Math.floor(n / 2);
  const read = await getJson<{ participants: number; percentile: number | null; rankings: { userId: string; rank: number; value: number }[] }>(r, `/api/leaderboards/${BOARD}?userId=${idOf(i)}&limit=1`);
  if (read.participants < n || read.rankings[0]?.userId !== idOf(i) || read.rankings[0].value !== valueOf(i) || read.percentile === null) {
    throw new Error(`the generated board does not read as laurel's: ${JSON.stringify(read)}`);
  }
  log(`  read back: ${idOf(i)} rank ${read.rankings[0].rank.toLocaleString('en')} of ${read.participants.toLocaleString('en')}, percentile ${read.percentile}`);
}

async function runPart(
  title: string, entries: Entry[], at: Launcher, admin: Redis | Cluster, redisPids: number[], keyed: (prefix: string) => Keys, signal: AbortSignal,
  memory: () => Promise<number>, deleteWith: Redis | null,
): Promise<void> {
  log(`\n${title}: ${ROUNDS} rounds of ${WARMUP_S} s warm-up + ${DURATION_S} s measured per variant, ${READS_PER_S} reads/s`);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = entries.map((_, i) => entries[(i + round - 1) % entries.length]);
    for (const e of order) {
      const r = await launch(e.variant, at, signal, e.kept);
      try {
        if (e.participants > 0 && e.kept === undefined) {
          e.kept = { prefix: r.session.prefix!, apiKey: r.session.apiKey, database: r.database };
          const { id, run } = await boardRun(r);
          const keys = keyed(e.kept.prefix);
          const bytesBefore = await memory();
          log(`  ${e.name}: generating ${e.participants.toLocaleString('en')} participants over ${e.shards} shard(s)`);
          // The board's shards were set through the Admin API: spread over the slot space.
          const seconds = await generate(admin, (shard) => keys.leaderboard('_', id, run, '', shard, e.shards > 1 ? e.shards : 0), e.shards, e.participants, signal);
          const bytesAfter = await memory();
          e.generation = { seconds: round1(seconds), bytesBefore, bytesAfter };
          log(`  generated in ${round1(seconds)} s; used_memory ${(bytesBefore / 1e6).toFixed(0)} MB -> ${(bytesAfter / 1e6).toFixed(0)} MB`);
          await checkBoard(r, e.participants);
        }
        const reads = e.participants > 0 ? readsOf(e.participants) : cappedReads(round);
        const open = async (n: number, fraction: number, peak: number) => {
          const o = await openPass(r, { round, n, tag: `scale-${round}-${e.name}-open${n}`, fraction, peak, durationS: DURATION_S, connections: CONNECTIONS, redisPids, reads, admin }, signal);
          e.open.push({ round, ...o });
          const ev = o.events === null ? 'no events' : `${o.rate} events/s (${o.events.achievedRate} answered/s) p50 ${o.events.p50Ms} p99 ${o.events.p99Ms} ms, ${o.events.unanswered} unanswered, non-2xx ${o.events.non2xx}`;
          log(`        open ${String(fraction).padEnd(5)} ${ev}  reads p50 ${o.reads.p50Ms} p99 ${o.reads.p99Ms} max ${o.reads.maxMs} ms (${o.reads.count}, ${o.reads.failed} failed, client delay p99 ${o.reads.sendDelayP99Ms} ms, from the send p99 ${o.reads.fromSendP99Ms} ms)  cpu µs/${o.events === null ? 'read' : 'event'} ${o.cpuUs === null ? '-' : `api ${o.cpuUs.api} redis ${o.cpuUs.redis}`}  load ${o.loadAverage}`);
          if (o.commands !== null) log(`          Redis's busiest: ${o.commands.map((c) => `${c.command} ${c.calls}× ${c.usec} µs`).join(', ')}`);
        };
        // The reads alone first: after the load, the workers' drain of its events would run beside them.
        for (const [n, fraction] of FRACTIONS.entries()) if (fraction === 0) await open(n, fraction, 0);
        const p = await pass(r, { round, tag: `scale-${round}-${e.name}`, warmupS: WARMUP_S, durationS: DURATION_S, connections: CONNECTIONS, redisPids, reads }, signal);
        e.passes.push({ round, snapshotS: r.snapshotS, ...p });
        log(`round ${round} ${e.name.padEnd(18)} ${String(p.reqPerS).padStart(6)} req/s  p99 ${p.p99Ms} ms  non-2xx ${p.non2xx}  reads p50 ${p.reads?.p50Ms} p99 ${p.reads?.p99Ms} ms (${p.reads?.count}, ${p.reads?.failed} failed, client delay p99 ${p.reads?.sendDelayP99Ms} ms, from the send p99 ${p.reads?.fromSendP99Ms} ms)  cpu µs/event api ${p.cpuUs.api} redis ${p.cpuUs.redis}  load ${p.loadAverage}  (start snapshot: ${r.snapshot})`);
        for (const [n, fraction] of FRACTIONS.entries()) if (fraction > 0) await open(n, fraction, p.reqPerS);
      } finally {
        await shutdown(r, at, deleteWith, e.participants === 0);
      }
    }
  }
}

function summarise(entries: Entry[], reference: string): Record<string, unknown>[] {
  const ref = entries.find((e) => e.name === reference)!;
  return entries.map((e) => {
    const ratios = e.passes.map((p) => p.reqPerS / ref.passes.find((q) => q.round === p.round)!.reqPerS);
    const readP99 = e.passes.map((p) => p.reads?.p99Ms ?? NaN);
    return {
      variant: e.name, participants: e.participants, shards: e.shards,
      reqPerS: median(e.passes.map((p) => p.reqPerS)), perRound: e.passes.map((p) => p.reqPerS),
      [`of ${reference}`]: round2(median(ratios) * 100), [`of ${reference}, per round`]: ratios.map((x) => round2(x * 100)),
      startSnapshotS: e.passes.map((p) => p.snapshotS),
      readP99Ms: median(readP99), readP99PerRound: readP99, readFailed: e.passes.reduce((n, p) => n + (p.reads?.failed ?? 0), 0),
      readClientDelayP99Ms: median(e.passes.map((p) => p.reads?.sendDelayP99Ms ?? NaN)),
      readFromSendP99Ms: median(e.passes.map((p) => p.reads?.fromSendP99Ms ?? NaN)),
      cpuUsPerEvent: { api: median(e.passes.map((p) => p.cpuUs.api)), redis: median(e.passes.map((p) => p.cpuUs.redis)) },
      openLoop: FRACTIONS.map((fraction) => {
        const os = e.open.filter((o) => o.fraction === fraction);
        const eventsP99 = os.map((o) => o.events?.p99Ms ?? NaN);
        return {
          fraction, eventsPerS: os.map((o) => o.rate), eventsP99Ms: fraction === 0 ? null : median(eventsP99), eventsP99PerRound: eventsP99,
          readP50Ms: median(os.map((o) => o.reads.p50Ms ?? NaN)), readP99Ms: median(os.map((o) => o.reads.p99Ms ?? NaN)),
          readP99PerRound: os.map((o) => o.reads.p99Ms), readFailed: os.reduce((n, o) => n + o.reads.failed, 0), loadAverage: os.map((o) => o.loadAverage),
          readClientDelayP99Ms: median(os.map((o) => o.reads.sendDelayP99Ms ?? NaN)),
          readFromSendP99Ms: median(os.map((o) => o.reads.fromSendP99Ms ?? NaN)),
          [fraction === 0 ? 'cpuUsPerRead' : 'cpuUsPerEvent']: { api: median(os.map((o) => o.cpuUs?.api ?? NaN)), redis: median(os.map((o) => o.cpuUs?.redis ?? NaN)) },
        };
      }),
      ...(e.generation ? {
        generationS: e.generation.seconds,
        bytesPerParticipant: Math.round((e.generation.bytesAfter - e.generation.bytesBefore) / e.participants),
        usedMemoryMb: Math.round(e.generation.bytesAfter / 1e6),
      } : {}),
    };
  });
}

async function main(): Promise<void> {
  const signal = abortOnSignals();
  const databaseServer = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const postgres = await connectPostgres(databaseServer);
  const partitions = loadSettings({}).partitions;
  const out: Record<string, unknown> = {
    when: new Date().toISOString(), commit: gitCommit(), rounds: ROUNDS, durationS: DURATION_S, warmupS: WARMUP_S, readsPerS: READS_PER_S, fractions: FRACTIONS, apiProcesses: API_PROCESSES,
  };
  const databases: string[] = [];
  try {
    if (PARTS.includes('single')) {
      const own = await startOwnRedis();
      const redis = new Redis(own.url);
      const at: Launcher = { redisUrl: own.url, postgres, databaseServer };
      const spec = { features: 'all' as const, processes: 'start' as const, board: 1000, apiProcesses: API_PROCESSES };
      const capped = laurel({ ...spec, name: 'capped-1000', description: 'laurel-system\'s scenario under npm start\'s processes' });
      const big = laurel({ ...spec, name: 'uncapped-scale', description: 'laurel-system, its board uncapped and generated', uncapped: true });
      const empty = laurel({ ...spec, name: 'uncapped-empty', description: 'laurel-system, its board uncapped', uncapped: true });
      const entries: Entry[] = [
        { name: 'capped-1000', variant: capped, participants: 0, shards: 1, passes: [], open: [] },
        { name: `uncapped-${PARTICIPANTS.toLocaleString('en')}`, variant: big, participants: PARTICIPANTS, shards: 1, passes: [], open: [] },
        { name: 'uncapped-empty', variant: empty, participants: 0, shards: 1, passes: [], open: [] },
      ];
      try {
        await runPart('Single Redis (a redis-server of the bench\'s own)', entries, at, redis, [own.pid], (p) => new Keys(p, partitions), signal, () => usedMemory(redis), redis);
        const kept = entries[1].kept!;
        const historyPerUser = await historyBytes(redis, new Keys(kept.prefix, partitions).leaderboard('_', 'history-sample', '2026-01-01', ''));
        out.single = { summary: summarise(entries, 'capped-1000'), historyBytesPerParticipant: Math.round(historyPerUser), passes: entries.map((e) => ({ name: e.name, passes: e.passes, open: e.open })) };
        log(JSON.stringify(out.single, null, 1));
      } finally {
        for (const e of entries) if (e.kept) databases.push(e.kept.database.name);
        redis.disconnect();
        await own.stop();
      }
    }
    if (PARTS.includes('cluster')) {
      const cluster = await startRedisCluster();
      const nodes = cluster.nodes;
      const client = new Cluster(nodes, { scaleReads: 'master' });
      const nodeClients = nodes.map((n) => new Redis(n.port, n.host));
      const pids = await Promise.all(nodeClients.map(async (c) => Number(/process_id:(\d+)/.exec(await c.info('server'))![1])));
      const memory = async () => (await Promise.all(nodeClients.map((c) => usedMemory(c)))).reduce((a, b) => a + b, 0);
      const at: Launcher = { redisUrl: `redis://${nodes[0].host}:${nodes[0].port}`, postgres, databaseServer, env: { REDIS_CLUSTER_NODES: nodes.map((n) => `${n.host}:${n.port}`).join(',') } };
      const spec = { description: 'laurel-system on the Cluster, its board uncapped and generated', features: 'all' as const, processes: 'start' as const, board: 1000, uncapped: true, apiProcesses: API_PROCESSES };
      const entries: Entry[] = [
        { name: 'cluster-1-shard', variant: laurel({ ...spec, name: 'cluster-1-shard' }), participants: CLUSTER_PARTICIPANTS, shards: 1, passes: [], open: [] },
        { name: 'cluster-3-shards', variant: laurel({ ...spec, name: 'cluster-3-shards', shards: 3 }), participants: CLUSTER_PARTICIPANTS, shards: 3, passes: [], open: [] },
      ];
      try {
        await runPart('A 3-primary Cluster of the bench\'s own', entries, at, client, pids, (p) => new Keys(p, partitions), signal, memory, null);
        const perNode = await Promise.all(nodeClients.map((c) => usedMemory(c)));
        out.cluster = { summary: summarise(entries, 'cluster-1-shard'), usedMemoryPerNodeMb: perNode.map((b) => Math.round(b / 1e6)), passes: entries.map((e) => ({ name: e.name, passes: e.passes, open: e.open })) };
        log(JSON.stringify(out.cluster, null, 1));
      } finally {
        for (const e of entries) if (e.kept) databases.push(e.kept.database.name);
        client.disconnect();
        for (const c of nodeClients) c.disconnect();
        await cluster.stop();
      }
    }
  } finally {
    await stopAll();
    for (const name of databases) await dropDatabase(postgres, name);
    await postgres.end();
  }
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  // A run of one part alone is kept under a name of its own: it does not replace a run of both.
  const part = PARTS.includes('single') && PARTS.includes('cluster') ? '' : `-${PARTS.includes('single') ? 'single' : 'cluster'}`;
  writeFileSync(`${ROOT}bench/results/scale-board${part}.json`, `${JSON.stringify({ ...out, participants: PARTICIPANTS, clusterParticipants: CLUSTER_PARTICIPANTS }, null, 2)}\n`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  await stopAll();
  process.exit(1);
});
