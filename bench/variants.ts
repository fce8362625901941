/**
 * The named variants of one workload (the metric event, bench/wrk/event.lua). Each starts its own
 * server in a fresh child process on a port the runner picked, under a fresh Redis key prefix.
 *
 *   uws-hello       uWS reads the body and answers {"ok":true}: the HTTP ceiling
 *   trivial-script  + JSON.parse + one trivial Lua script through ioredis: the design's floor
 *   ten-command-script  the same with a script of the ten commands an XP event's phase 1 runs
 *   laurel-event    the real laurel api, `node --max-semi-space-size=32 dist/src/cli.js api`, on the bare metric
 *   laurel-streaks  the same server and load, the metric with three achievements and a daily streak
 *   laurel-points   and an XP points system (10 points a lesson, two levels)
 *   laurel-features and a leaderboard of the top 100: what issues 3, 4 and 5 put on a metric
 *
 * The system as it runs (the full scenario: three achievements, a daily streak, a points trigger
 * and a capped leaderboard of 1,000 on the metric), each with Postgres (DATABASE_URL):
 *   laurel-api      `laurel api` alone: no workers, so nothing drains the event log
 *   laurel-system   `laurel start` with one api process (LAUREL_API_PROCESSES=1), the workers in the primary
 *   laurel-system-2 `laurel start` with two api processes (LAUREL_API_PROCESSES=2), the workers in the
 *                   primary: what a second api process gives
 *   laurel-split    `laurel api` and `laurel workers`, two processes
 *   laurel-system-notify laurel-system with notifications configured for every type: what they cost
 *   laurel-system-hooks  laurel-system with one webhook endpoint subscribed to every type: what webhooks cost
 *   laurel-split-notify  laurel-split with notifications configured for every type: their cost in the
 *                   workers' own process, apart from the api's
 *   laurel-split-hooks   laurel-split with one webhook endpoint subscribed to every type: their cost in
 *                   the workers' own process, apart from the api's
 *   laurel-event-nometrics, laurel-features-nometrics  laurel-event and laurel-features with
 *                   LAUREL_METRICS=0: what the metrics cost the event path
 *   laurel-system-limits, laurel-system-uncapped, laurel-system-league  laurel-system with a limit
 *                   on the metric (never reached), with its board uncapped, and with a daily league
 *                   beside it: what each capability costs an installation that uses it
 *   laurel-batch    laurel-system's scenario, the events sent 500 at a time through
 *                   POST /admin/v1/metrics/events (bench/wrk/batch.lua) and applied by the workers
 * The steady-state workload (bench/wrk/steady.lua: most events from returning users of a
 * population made before the rounds, bench/steady-population.ts), on that population's prefix
 * and database, shared by every steady variant and round:
 *   steady-system   laurel-system's scenario on the population
 *   steady-system-hooks  the same with laurel-system-hooks' webhook endpoint
 *   steady-league   the same with laurel-system-league's daily league beside the board
 *   steady-uncapped the same with an uncapped board (everyone ranked) beside the board of 1,000
 *   laurel-batch-minute  laurel-batch, each batch a minute of an app's traffic: 500 events of 100
 *                   users, 5 a user on average
 * Every laurel variant sets LAUREL_API_PROCESSES (1 but for laurel-system-2), whatever the machine's
 * cores, so its figures keep their meaning from run to run and machine to machine.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { baselineName } from './baseline.js';
import { loadSettings } from '../src/lib/settings.js';
import { startNode, type Child } from './processes.js';
import { webhookReceiver } from './webhook-receiver.js';
import { NOTIFICATION_TYPES, WEBHOOK_TYPES } from '../src/model/entities.js';

/** The repository root, from dist/bench/variants.js. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The checkout's commit (40 hex digits), or 'unknown' outside a git checkout. */
export function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** The path every variant is loaded on; the bench servers answer any POST path. */
export const EVENT_PATH = '/api/metrics/lessons/event';

/** The path of the batch variants (`Session.batch`). */
export const BATCH_PATH = '/admin/v1/metrics/events';

export interface Launch {
  host: string;
  port: number;
  redisUrl: string;
  /** Postgres of the variants whose workers run (default postgres://postgres@127.0.0.1:5432/postgres). */
  databaseUrl?: string;
  /** Settings of laurel's own for this run (laurel's variants only). */
  env?: Record<string, string>;
  /** Node flags beside laurel's own (laurel's variants only: BENCH_CPU_PROFILE's `--cpu-prof`, which NODE_OPTIONS may not carry). */
  nodeArgs?: string[];
  /** The steady-state population a steady variant starts on (bench/steady-population.ts). */
  population?: SharedInstallation;
}

/** An installation's prefix, Admin key and database, made before a variant starts and kept after it stops. */
export interface SharedInstallation {
  prefix: string;
  apiKey: string;
  databaseUrl: string;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A laurel installation whose workers drain its event log: what bench/drain.ts reads. */
export interface DrainSetup {
  /** LAUREL_PREFIX: its Redis keys and its rows in Postgres. */
  prefix: string;
  partitions: number;
  databaseUrl: string;
}

export interface Session {
  /** The server under load: a bench server, or laurel's api (with the workers under `laurel start`). */
  child: Child;
  /** laurel's workers in a process of their own (`laurel workers`); null otherwise. */
  workers: Child | null;
  /** Set when the variant's workers run (in `child` or in `workers`): the drain to watch. */
  drain: DrainSetup | null;
  /** Redis key prefix to delete afterwards; null when the variant writes nothing. */
  prefix: string | null;
  /** LAUREL_API_PROCESSES of a laurel variant: more than 1, the server's children are the api processes. */
  apiProcesses?: number;
  /** The X-API-KEY sent with every request ('' when the server ignores it). */
  apiKey: string;
  readyUrl: string;
  eventUrl: string;
  /**
   * Events a request carries, for a variant that sends batches (bench/wrk/batch.lua to
   * BATCH_PATH); absent: one (bench/wrk/event.lua).
   */
  batch?: number;
  /** A batch's events per user on average (bench/wrk/batch.lua's perUser); absent: users drawn item by item. */
  batchPerUser?: number;
}

export interface Variant {
  name: string;
  description: string;
  launch(at: Launch): Session;
  /** Runs once the server is ready, before the warm-up: configuration the load needs. */
  prepare?(session: Session, signal: AbortSignal): Promise<void>;
  /** True when it needs Postgres (its workers run). */
  postgres?: boolean;
  /** How laurel runs (laurel's variants only). */
  processes?: Processes;
  /** LAUREL_API_PROCESSES (laurel's variants only). */
  apiProcesses?: number;
  /**
   * Runs on the steady-state population (Launch.population): its keys and database are the
   * population's, kept when the variant stops; its load is bench/wrk/steady.lua's.
   */
  steady?: boolean;
  /** Runs before the server stops: takes back what `prepare` added to a shared installation. */
  release?(session: Session, signal: AbortSignal): Promise<void>;
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * The runner's environment without anything that would change how a server behaves (a stray
 * LAUREL_* or REDIS_CLUSTER_NODES from the shell), so each variant gets exactly what it is given.
 */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('LAUREL_') || k.startsWith('BENCH_') || ['PORT', 'HOST', 'REDIS_CLUSTER_NODES', 'BODY_LIMIT', 'LOG_LEVEL'].includes(k)) continue;
    env[k] = v;
  }
  return env;
}

function urls(at: Launch): Pick<Session, 'readyUrl' | 'eventUrl'> {
  const base = `http://${at.host}:${at.port}`;
  return { readyUrl: `${base}/ready`, eventUrl: `${base}${EVENT_PATH}` };
}

const server = (file: string) => `${ROOT}dist/bench/servers/${file}`;

export const uwsHello: Variant = {
  name: 'uws-hello',
  description: 'uWebSockets.js reads the POST body and answers {"ok":true}',
  launch(at) {
    const env = { ...baseEnv(), PORT: String(at.port), HOST: at.host };
    return { child: startNode('uws-hello', server('hello.js'), [], env), workers: null, drain: null, prefix: null, apiKey: '', ...urls(at) };
  },
};

export const trivialScript: Variant = {
  name: 'trivial-script',
  description: 'uWS + JSON.parse of the body + one INCR Lua script via ioredis defineCommand',
  launch(at) {
    const prefix = `bench-trivial-${hex(6)}`;
    const env = { ...baseEnv(), PORT: String(at.port), HOST: at.host, BENCH_PREFIX: prefix, REDIS_URL: at.redisUrl };
    return { child: startNode('trivial-script', server('trivial-script.js'), [], env), workers: null, drain: null, prefix, apiKey: '', ...urls(at) };
  },
};

export const tenCommandScript: Variant = {
  name: 'ten-command-script',
  description: 'the trivial script\'s server with a script of the ten commands of an XP event\'s phase 1',
  launch(at) {
    const prefix = `bench-ten-${hex(6)}`;
    const env = { ...baseEnv(), PORT: String(at.port), HOST: at.host, BENCH_PREFIX: prefix, BENCH_SCRIPT: 'ten', REDIS_URL: at.redisUrl };
    return { child: startNode('ten-command-script', server('trivial-script.js'), [], env), workers: null, drain: null, prefix, apiKey: '', ...urls(at) };
  },
};

async function post(url: string, apiKey: string, body: unknown, signal: AbortSignal): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
  });
  return { status: res.status, text: await res.text() };
}

async function put(url: string, apiKey: string, body: unknown, signal: AbortSignal): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'PUT',
    headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
  });
  return { status: res.status, text: await res.text() };
}

/**
 * Node's flags for laurel, as `npm start`, the Dockerfile and docs/operations.md run it: a young
 * generation of 32 MB semi-spaces (docs/operations.md).
 */
export const LAUREL_NODE_FLAGS = ['--max-semi-space-size=32'];

/** What the metric carries, issue by issue: nothing, achievements and a streak, + points, + a leaderboard. */
type Features = 'none' | 'streaks' | 'points' | 'all';

/**
 * How laurel runs: `api` alone (`laurel api`: nothing drains the event log), `start` (as `npm
 * start`: api processes, and the workers in the primary), `split` (`laurel api` and `laurel workers`).
 */
export type Processes = 'api' | 'start' | 'split';

/** A laurel variant's recipe: name, description, what the metric carries, how laurel runs, the board's size. */
export interface LaurelSpec {
  name: string;
  description: string;
  features: Features;
  processes: Processes;
  /** maxParticipants of the leaderboard (features 'all'). */
  board: number;
  /** LAUREL_API_PROCESSES (1 unless said). */
  apiProcesses?: number;
  /** One webhook endpoint subscribed to every type, on a receiver in the runner (bench/webhook-receiver.ts). */
  webhooks?: boolean;
  /** Notifications configured for every type (an email template of each, the settings). */
  notifications?: boolean;
  /** LAUREL_METRICS=0: no request observed, no process metrics (what metrics cost the event path). */
  metricsOff?: boolean;
  /** Events a request carries, sent through POST /admin/v1/metrics/events (the workers apply them). */
  batch?: number;
  /** A batch's events per user (a minute of an app's traffic: bench/wrk/batch.lua's perUser). */
  batchPerUser?: number;
  /** A daily limit on the metric, far above what a bench user sends: what checking it costs, nothing held back. */
  limits?: boolean;
  /** The leaderboard without a cap (maxParticipants null): every user ranked. */
  uncapped?: boolean;
  /** A second board, daily, with a league of three tiers in cohorts of 30. */
  league?: boolean;
  /** The leaderboard's shards (uncapped only: bench/scale-board.ts spreads it over a Cluster). */
  shards?: number;
  /** On the steady-state population, its scenario made with it (Variant.steady). */
  steady?: boolean;
}

/**
 * A laurel variant, run from the tree at `root` (this checkout's, or a baseline's:
 * bench/baseline.ts): `node --max-semi-space-size=32 dist/src/cli.js api` (or `start`, or `api`
 * and `workers`), the same load for all.
 */
export function laurel(spec: LaurelSpec, root = ROOT): Variant {
  const { name, description, features, processes, board } = spec;
  const apiProcesses = spec.apiProcesses ?? 1;
  return {
    name,
    description,
    postgres: processes !== 'api',
    processes,
    apiProcesses,
    steady: spec.steady === true,
    launch(at) {
      if (spec.steady && at.population === undefined) throw new Error(`${name}: no steady-state population to start on`);
      const shared = spec.steady ? at.population : undefined;
      const prefix = shared?.prefix ?? `bench${hex(6)}`;
      const apiKey = shared?.apiKey ?? `bench-admin-${hex(16)}`;
      const databaseUrl = shared?.databaseUrl ?? at.databaseUrl ?? DEFAULT_DATABASE_URL;
      const env = {
        ...baseEnv(), PORT: String(at.port), HOST: at.host, REDIS_URL: at.redisUrl,
        LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: apiKey, LOG_LEVEL: 'warn', LAUREL_API_PROCESSES: String(apiProcesses),
        ...(processes === 'api' ? {} : { DATABASE_URL: databaseUrl }),
        ...(spec.webhooks ? { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } : {}),
        ...(spec.metricsOff ? { LAUREL_METRICS: '0' } : {}),
        ...at.env,
      };
      const cli = `${root}dist/src/cli.js`;
      const flags = [...LAUREL_NODE_FLAGS, ...(at.nodeArgs ?? [])];
      const child = startNode(name, cli, [processes === 'start' ? 'start' : 'api'], env, flags);
      // The workers as docs/operations.md and the Docker image run them (the image's flags too).
      const workers = processes === 'split' ? startNode(`${name} workers`, cli, ['workers'], env, flags) : null;
      // The partitions as laurel reads them (LAUREL_PARTITIONS is not set: its default).
      const drain = processes === 'api' ? null : { prefix, partitions: loadSettings(env).partitions, databaseUrl };
      const session: Session = { child, workers, drain, prefix, apiKey, apiProcesses, ...urls(at) };
      if (spec.batch !== undefined) {
        session.batch = spec.batch;
        if (spec.batchPerUser !== undefined) session.batchPerUser = spec.batchPerUser;
        session.eventUrl = session.eventUrl.replace(EVENT_PATH, BATCH_PATH);
      }
      return session;
    },
    /**
     * Creates the metric `lessons`; with `features` also three achievements at rising thresholds,
     * a daily streak with freezes, an XP system (10 points a lesson, two levels) and a leaderboard of
     * the top `board` learners, so every event also evaluates achievements, extends or reads the
     * streak, awards points and ranks the user (phase 2). Then one probe event.
     */
    async prepare(session, signal) {
      const admin = (path: string) => session.readyUrl.replace(/\/ready$/, `/admin/v1${path}`);
      if (!spec.steady) await configure(session, signal);
      else if (spec.league || spec.uncapped) await addBoards(session, signal);
      if (spec.webhooks) {
        const hook = await post(admin('/webhooks'), session.apiKey, [{ name: 'Bench', url: await webhookReceiver(), events: [...WEBHOOK_TYPES] }], signal);
        if (hook.status !== 201) throw new Error(`creating the webhook failed: HTTP ${hook.status} ${hook.text}`);
      }
      // One event before the load, so a wrong route or key fails here with the reason, not as
      // thousands of non-2xx lines in the table.
      const probe = session.batch === undefined
        ? await post(session.eventUrl, session.apiKey, { user: { id: 'bench-probe' }, value: 1 }, signal)
        : await post(session.eventUrl, session.apiKey, [{ key: 'lessons', user: { id: 'bench-probe' }, value: 1 }], signal);
      if (probe.status !== (session.batch === undefined ? 201 : 202)) throw new Error(`the probe event failed: HTTP ${probe.status} ${probe.text}`);
    },
    /**
     * What a steady variant added to the population (webhook endpoints, boards but the scenario's)
     * deleted, so the next variant on it runs the scenario alone.
     */
    async release(session, signal) {
      if (!spec.steady) return;
      if (spec.webhooks) await deleteAll(session, '/webhooks', () => true, signal);
      if (spec.league || spec.uncapped) await deleteAll(session, '/leaderboards', (b) => b.key !== 'top-learners', signal);
    },
  };

  /** A steady variant's boards beside the population's: the daily league, or an uncapped board ranking everyone. */
  async function addBoards(session: Session, signal: AbortSignal): Promise<void> {
    const base = session.readyUrl.replace(/\/ready$/, '/admin/v1');
    const metrics = await fetch(`${base}/metrics?limit=100`, { headers: { 'X-API-KEY': session.apiKey }, signal });
    const metricId = (await metrics.json() as { id: string; key: string }[]).find((m) => m.key === 'lessons')?.id;
    if (metricId === undefined) throw new Error('the population has no metric `lessons`');
    const boards = [
      ...(spec.uncapped ? [{ name: 'Everyone', key: 'everyone', rankBy: 'metric', metricId, maxParticipants: null, status: 'active' }] : []),
      ...(spec.league ? [dailyLeague(metricId)] : []),
    ];
    const created = await post(`${base}/leaderboards`, session.apiKey, boards, signal);
    if (created.status !== 201) throw new Error(`creating the boards failed: HTTP ${created.status} ${created.text}`);
  }

  /** The scenario's configuration: the metric and, as far as `features` go, what it carries. */
  async function configure(session: Session, signal: AbortSignal): Promise<void> {
    const admin = (path: string) => session.readyUrl.replace(/\/ready$/, `/admin/v1${path}`);
    const created = await post(admin('/metrics'), session.apiKey, [{
      name: 'Lessons', key: 'lessons', ...(spec.limits ? { limits: { max: 1_000_000, period: 'day' } } : {}),
    }], signal);
    if (created.status !== 201) throw new Error(`creating the metric failed: HTTP ${created.status} ${created.text}`);
    const metricId = (JSON.parse(created.text) as { created: { id: string }[] }).created[0].id;
    if (features !== 'none') {
      const achievements = await post(admin('/achievements'), session.apiKey, [5, 20, 100].map((n) => ({
        name: `${n} lessons`, key: `lessons-${n}`, trigger: 'metric', metricId, metricValue: n,
      })), signal);
      if (achievements.status !== 201) throw new Error(`creating the achievements failed: HTTP ${achievements.status} ${achievements.text}`);
      const streak = await put(admin('/streaks/settings'), session.apiKey, {
        frequency: 'daily', metrics: [{ metricId, threshold: 1 }],
        freezes: { initial: 1, max: 3, autoEarnInterval: 7, autoEarnAmount: 1 },
      }, signal);
      if (streak.status !== 200) throw new Error(`configuring the streak failed: HTTP ${streak.status} ${streak.text}`);
    }
    if (features === 'points' || features === 'all') {
      const points = await post(admin('/points'), session.apiKey, [{
        name: 'XP', key: 'xp',
        levels: [{ name: 'Novice', key: 'novice', points: 50 }, { name: 'Adept', key: 'adept', points: 200 }],
        triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 10, status: 'active' }],
      }], signal);
      if (points.status !== 201) throw new Error(`creating the points system failed: HTTP ${points.status} ${points.text}`);
    }
    if (features === 'all') {
      const created = await post(admin('/leaderboards'), session.apiKey, [{
        name: 'Top learners', key: 'top-learners', rankBy: 'metric', metricId, maxParticipants: spec.uncapped ? null : board, status: 'active',
        ...(spec.shards === undefined ? {} : { shards: spec.shards }),
      }, ...(spec.league ? [dailyLeague(metricId)] : [])], signal);
      if (created.status !== 201) throw new Error(`creating the leaderboard failed: HTTP ${created.status} ${created.text}`);
    }
    if (spec.notifications) {
      const settings = await put(admin('/notifications/settings'), session.apiKey, { email: { from: 'bench@example.test' }, publicUrl: 'https://bench.example.test' }, signal);
      if (settings.status !== 200) throw new Error(`the notification settings failed: HTTP ${settings.status} ${settings.text}`);
      const templates = await post(admin('/notifications/templates'), session.apiKey, NOTIFICATION_TYPES.map((type) => ({
        key: `bench-${type}`, type, channel: 'email', status: 'active', subject: 'Hello {{ user.name }}', text: 'Hello.',
      })), signal);
      if (templates.status !== 201) throw new Error(`creating the templates failed: HTTP ${templates.status} ${templates.text}`);
    }
  }
}

/** laurel-system-league's board: daily, a league of three tiers in cohorts of 30, on `metricId`. */
function dailyLeague(metricId: string) {
  return {
    name: 'Daily league', key: 'daily-league', rankBy: 'metric', metricId, maxParticipants: null, status: 'active',
    start: new Date().toISOString().slice(0, 10), runUnit: 'day', runInterval: 1,
    league: { cohortSize: 30, tiers: [{ key: 'bronze', name: 'Bronze', promote: 5, demote: 0 }, { key: 'silver', name: 'Silver', promote: 5, demote: 5 }, { key: 'gold', name: 'Gold', promote: 0, demote: 5 }] },
  };
}

/** Deletes a shared installation's `path` entities (webhooks, leaderboards) that `which` picks. */
async function deleteAll(session: Session, path: string, which: (e: { id: string; key?: string }) => boolean, signal: AbortSignal): Promise<void> {
  const url = session.readyUrl.replace(/\/ready$/, `/admin/v1${path}`);
  const headers = { 'X-API-KEY': session.apiKey };
  const listed = await fetch(`${url}?limit=100`, { headers, signal });
  const ids = (await listed.json() as { id: string; key?: string }[]).filter(which).map((e) => e.id);
  if (ids.length === 0) return;
  const deleted = await fetch(`${url}?ids=${ids.join(',')}`, { method: 'DELETE', headers, signal });
  if (deleted.status !== 200) throw new Error(`deleting ${path} failed: HTTP ${deleted.status} ${await deleted.text()}`);
}

/** The laurel variants. */
const LAUREL: LaurelSpec[] = [
  { name: 'laurel-event', description: 'laurel api (node --max-semi-space-size=32 dist/src/cli.js api): POST /api/metrics/lessons/event, the bare metric', features: 'none', processes: 'api', board: 100 },
  { name: 'laurel-streaks', description: 'the event path with three achievements and a daily streak on the metric (issue 3)', features: 'streaks', processes: 'api', board: 100 },
  { name: 'laurel-points', description: 'the same and an XP points system (issue 4)', features: 'points', processes: 'api', board: 100 },
  { name: 'laurel-features', description: 'the same and a leaderboard of the top 100: everything (issue 5)', features: 'all', processes: 'api', board: 100 },
  { name: 'laurel-api', description: 'the full scenario (a leaderboard of the top 1,000) on `laurel api` alone: no workers, nothing drains the event log', features: 'all', processes: 'api', board: 1000 },
  { name: 'laurel-system', description: 'the full scenario on `laurel start` with one api process, the workers in the primary', features: 'all', processes: 'start', board: 1000 },
  { name: 'laurel-system-2', description: 'the full scenario on `laurel start` with two api processes on the port (LAUREL_API_PROCESSES=2), the workers in the primary', features: 'all', processes: 'start', board: 1000, apiProcesses: 2 },
  { name: 'laurel-split', description: 'the full scenario on `laurel api` and `laurel workers`, two processes', features: 'all', processes: 'split', board: 1000 },
  { name: 'laurel-system-notify', description: 'laurel-system with notifications configured for every type (an email template each; the bench users have no email, so each is suppressed when due)', features: 'all', processes: 'start', board: 1000, notifications: true },
  { name: 'laurel-system-hooks', description: 'laurel-system with one webhook endpoint subscribed to every type (a receiver on loopback answering 204)', features: 'all', processes: 'start', board: 1000, webhooks: true },
  { name: 'laurel-split-notify', description: 'laurel-split with notifications configured for every type: their cost in the workers\' process, apart from the api\'s', features: 'all', processes: 'split', board: 1000, notifications: true },
  { name: 'laurel-split-hooks', description: 'laurel-split with one webhook endpoint subscribed to every type: their cost in the workers\' process, apart from the api\'s', features: 'all', processes: 'split', board: 1000, webhooks: true },
  { name: 'laurel-event-nometrics', description: 'laurel-event with LAUREL_METRICS=0: no request observed in the latency histogram, no process metrics', features: 'none', processes: 'api', board: 100, metricsOff: true },
  { name: 'laurel-features-nometrics', description: 'laurel-features with LAUREL_METRICS=0', features: 'all', processes: 'api', board: 100, metricsOff: true },
  { name: 'laurel-system-limits', description: 'laurel-system with a daily limit on the metric (1,000,000, never reached): what checking a limit costs', features: 'all', processes: 'start', board: 1000, limits: true },
  { name: 'laurel-system-uncapped', description: 'laurel-system with the leaderboard uncapped (every user ranked) instead of the top 1,000', features: 'all', processes: 'start', board: 1000, uncapped: true },
  { name: 'laurel-system-league', description: 'laurel-system and a daily league on the metric (three tiers, cohorts of 30)', features: 'all', processes: 'start', board: 1000, league: true },
  { name: 'laurel-batch', description: 'laurel-system\'s scenario, 500 events a request through POST /admin/v1/metrics/events, applied by the workers (a request counts as 500 events)', features: 'all', processes: 'start', board: 1000, batch: 500 },
  { name: 'steady-system', description: 'laurel-system\'s scenario on the steady-state population: most events from returning users (bench/wrk/steady.lua)', features: 'all', processes: 'start', board: 1000, steady: true },
  { name: 'steady-system-hooks', description: 'steady-system with laurel-system-hooks\' webhook endpoint (deleted again when it stops)', features: 'all', processes: 'start', board: 1000, webhooks: true, steady: true },
  { name: 'steady-league', description: 'steady-system and laurel-system-league\'s daily league beside the board (deleted again when it stops)', features: 'all', processes: 'start', board: 1000, league: true, steady: true },
  { name: 'steady-uncapped', description: 'steady-system and an uncapped board ranking everyone beside the board of 1,000 (deleted again when it stops)', features: 'all', processes: 'start', board: 1000, uncapped: true, steady: true },
  { name: 'laurel-batch-minute', description: 'laurel-batch with batches like a minute of an app\'s traffic: each batch\'s 500 events from 100 users, 5 a user on average', features: 'all', processes: 'start', board: 1000, batch: 500, batchPerUser: 5 },
];

export const [
  laurelEvent, laurelStreaks, laurelPoints, laurelFeatures, laurelApi, laurelSystem, laurelSystem2, laurelSplit, laurelSystemNotify, laurelSystemHooks,
  laurelSplitNotify, laurelSplitHooks, laurelEventNoMetrics, laurelFeaturesNoMetrics, laurelSystemLimits, laurelSystemUncapped,
  laurelSystemLeague, laurelBatch, steadySystem, steadySystemHooks, steadyLeague, steadyUncapped, laurelBatchMinute,
] = LAUREL.map((spec) => laurel(spec));

/**
 * The twin of laurel variant `name` run from a baseline's tree (bench/baseline.ts), named
 * `<name>@base`; null for a variant that is not laurel's.
 */
/** A board's placement as the data structure alone: ZINCRBY and ZREVRANK on a set of `members` (bench/servers/trivial-script.ts). */
function zsetFloor(name: string, script: 'zset' | 'zset-1000', members: string): Variant {
  return {
    name,
    description: `the trivial script's server with a ZINCRBY and a ZREVRANK on a sorted set of ${members}: the floor of a board's placement`,
    launch(at) {
      const prefix = `bench-zset-${hex(6)}`;
      const env = { ...baseEnv(), PORT: String(at.port), HOST: at.host, BENCH_PREFIX: prefix, BENCH_SCRIPT: script, REDIS_URL: at.redisUrl };
      return { child: startNode(name, server('trivial-script.js'), [], env), workers: null, drain: null, prefix, apiKey: '', ...urls(at) };
    },
  };
}

export const zsetFloorAll = zsetFloor('zset-floor', 'zset', 'every user (as an uncapped board grows)');
export const zsetFloor1000 = zsetFloor('zset-floor-1000', 'zset-1000', '1,000 members (as a capped board holds)');

export function baselineTwin(name: string, root: string, commit: string): Variant | null {
  const spec = LAUREL.find((s) => s.name === name);
  if (spec === undefined) return null;
  return laurel({ ...spec, name: baselineName(spec.name), description: `${spec.description}, as of ${commit.slice(0, 12)}` }, root);
}

export const VARIANTS: Variant[] = [
  uwsHello, trivialScript, tenCommandScript, zsetFloor1000, zsetFloorAll, laurelEvent, laurelStreaks, laurelPoints, laurelFeatures, laurelApi, laurelSystem, laurelSystem2, laurelSplit,
  laurelSystemNotify, laurelSystemHooks, laurelSplitNotify, laurelSplitHooks, laurelEventNoMetrics, laurelFeaturesNoMetrics,
  laurelSystemLimits, laurelSystemUncapped, laurelSystemLeague, laurelBatch, laurelBatchMinute, steadySystem, steadySystemHooks,
  steadyLeague, steadyUncapped,
];
