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
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { baselineName } from './baseline.js';
import { startNode, type Child } from './processes.js';

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

export interface Launch {
  host: string;
  port: number;
  redisUrl: string;
}

export interface Session {
  child: Child;
  /** Redis key prefix to delete afterwards; null when the variant writes nothing. */
  prefix: string | null;
  /** The X-API-KEY sent with every request ('' when the server ignores it). */
  apiKey: string;
  readyUrl: string;
  eventUrl: string;
}

export interface Variant {
  name: string;
  description: string;
  launch(at: Launch): Session;
  /** Runs once the server is ready, before the warm-up: configuration the load needs. */
  prepare?(session: Session, signal: AbortSignal): Promise<void>;
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
    return { child: startNode('uws-hello', server('hello.js'), [], env), prefix: null, apiKey: '', ...urls(at) };
  },
};

export const trivialScript: Variant = {
  name: 'trivial-script',
  description: 'uWS + JSON.parse of the body + one INCR Lua script via ioredis defineCommand',
  launch(at) {
    const prefix = `bench-trivial-${hex(6)}`;
    const env = { ...baseEnv(), PORT: String(at.port), HOST: at.host, BENCH_PREFIX: prefix, REDIS_URL: at.redisUrl };
    return { child: startNode('trivial-script', server('trivial-script.js'), [], env), prefix, apiKey: '', ...urls(at) };
  },
};

export const tenCommandScript: Variant = {
  name: 'ten-command-script',
  description: 'the trivial script\'s server with a script of the ten commands of an XP event\'s phase 1',
  launch(at) {
    const prefix = `bench-ten-${hex(6)}`;
    const env = { ...baseEnv(), PORT: String(at.port), HOST: at.host, BENCH_PREFIX: prefix, BENCH_SCRIPT: 'ten', REDIS_URL: at.redisUrl };
    return { child: startNode('ten-command-script', server('trivial-script.js'), [], env), prefix, apiKey: '', ...urls(at) };
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

/**
 * A variant of the real laurel api (`node --max-semi-space-size=32 dist/src/cli.js api`), the same
 * server and load for both: `features` false prepares the bare metric, true adds the product's
 * scenario on it.
 */
/** What the metric carries, issue by issue: nothing, achievements and a streak, + points, + a leaderboard. */
type Features = 'none' | 'streaks' | 'points' | 'all';

/** A laurel variant, run from the tree at `root` (this checkout's, or a baseline's: bench/baseline.ts). */
function laurel(name: string, description: string, features: Features, root = ROOT): Variant {
  return {
    name,
    description,
    launch(at) {
      const prefix = `bench${hex(6)}`;
      const apiKey = `bench-admin-${hex(16)}`;
      const env = {
        ...baseEnv(), PORT: String(at.port), HOST: at.host, REDIS_URL: at.redisUrl,
        LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: apiKey, LOG_LEVEL: 'warn',
      };
      return { child: startNode(name, `${root}dist/src/cli.js`, ['api'], env, LAUREL_NODE_FLAGS), prefix, apiKey, ...urls(at) };
    },
    /**
     * Creates the metric `lessons`; with `features` also three achievements at rising thresholds,
     * a daily streak with freezes, an XP system (10 points a lesson, two levels) and a leaderboard of
     * the top 100 learners, so every event also evaluates achievements, extends or reads the streak,
     * awards points and ranks the user (phase 2). Then one probe event.
     */
    async prepare(session, signal) {
      const admin = (path: string) => session.eventUrl.replace(EVENT_PATH, `/admin/v1${path}`);
      const created = await post(admin('/metrics'), session.apiKey, [{ name: 'Lessons', key: 'lessons' }], signal);
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
        const board = await post(admin('/leaderboards'), session.apiKey, [{
          name: 'Top learners', key: 'top-learners', rankBy: 'metric', metricId, maxParticipants: 100, status: 'active',
        }], signal);
        if (board.status !== 201) throw new Error(`creating the leaderboard failed: HTTP ${board.status} ${board.text}`);
      }
      // One event before the load, so a wrong route or key fails here with the reason, not as
      // thousands of non-2xx lines in the table.
      const probe = await post(session.eventUrl, session.apiKey, { user: { id: 'bench-probe' }, value: 1 }, signal);
      if (probe.status !== 201) throw new Error(`the probe event failed: HTTP ${probe.status} ${probe.text}`);
    },
  };
}

/** The laurel variants: name, description, what the metric carries. */
const LAUREL: [string, string, Features][] = [
  ['laurel-event', 'laurel api (node --max-semi-space-size=32 dist/src/cli.js api): POST /api/metrics/lessons/event, the bare metric', 'none'],
  ['laurel-streaks', 'the event path with three achievements and a daily streak on the metric (issue 3)', 'streaks'],
  ['laurel-points', 'the same and an XP points system (issue 4)', 'points'],
  ['laurel-features', 'the same and a leaderboard of the top 100: everything (issue 5)', 'all'],
];

export const [laurelEvent, laurelStreaks, laurelPoints, laurelFeatures] = LAUREL.map(([n, d, f]) => laurel(n, d, f));

/**
 * The twin of laurel variant `name` run from a baseline's tree (bench/baseline.ts), named
 * `<name>@base`; null for a variant that is not laurel's.
 */
export function baselineTwin(name: string, root: string, commit: string): Variant | null {
  const spec = LAUREL.find(([n]) => n === name);
  if (spec === undefined) return null;
  const [n, d, f] = spec;
  return laurel(baselineName(n), `${d}, as of ${commit.slice(0, 12)}`, f, root);
}

export const VARIANTS: Variant[] = [uwsHello, trivialScript, tenCommandScript, laurelEvent, laurelStreaks, laurelPoints, laurelFeatures];
