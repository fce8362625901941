/**
 * Test harness that boots a throw-away 3-primary Redis Cluster from the local
 * `redis-server` binary, so cluster-only behaviour (MOVED redirects, CROSSSLOT
 * errors, hash tags) can be exercised without Docker.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { canBind, ephemeralRange, outsideEphemeral } from './ports.js';

export interface RedisClusterHandle {
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
  /** SIGKILLs every node (or only node `only`) and keeps their directories (an outage; `restart` brings them back). */
  kill(only?: number): Promise<void>;
  /** Starts the killed nodes again on the same ports and directories; resolves once the cluster is ok. */
  restart(): Promise<void>;
}

export interface RedisClusterOptions {
  basePort?: number;
  /** Append-only file, fsynced on every write: the data outlives `kill` and `restart`. */
  persistent?: boolean;
}

const HOST = '127.0.0.1';
const NODE_COUNT = 3;
const SLOT_COUNT = 16384;
// Redis Cluster's bus listens on port + 10000 unless told otherwise.
const BUS_PORT_OFFSET = 10000;
const RANDOM_PORT_MIN = 20000;
const RANDOM_PORT_MAX = 29999;
const MAX_PORT_ATTEMPTS = 100;
const START_TIMEOUT_MS = 30_000;
// Bounds every single readiness probe so one hung connection cannot eat the
// whole start-up budget.
const PROBE_TIMEOUT_MS = 2_000;
const POLL_INTERVAL_MS = 100;
const KILL_GRACE_MS = 3_000;
const OUTPUT_TAIL_CHARS = 4_000;
// With the slot split below these tags hash to slots owned by three different
// primaries, so a successful SET/GET proves the client follows the slot map.
const PROBE_KEYS = ['{a}x', '{b}x', '{c}x'];

interface RedisNode {
  port: number;
  dir: string;
  child: ChildProcess;
  /** Resolves once the process is gone (also when it never spawned). */
  closed: Promise<void>;
  /** Last OUTPUT_TAIL_CHARS characters of stdout + stderr. */
  output(): string;
}

/** Returns null when `redis-server` can be run, otherwise why it cannot. */
export function redisServerAvailable(): string | null {
  const result = spawnSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (result.error) return `redis-server cannot be run: ${result.error.message}`;
  if (result.status !== 0) {
    return `redis-server --version exited with status ${result.status}: ${result.stderr.trim()}`;
  }
  return null;
}

export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisClusterHandle> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const ports = await pickPorts(opts.basePort);
  const nodes: RedisNode[] = [];
  const persistent = opts.persistent === true;
  const handle = createHandle(ports, nodes, persistent);
  try {
    for (const port of ports) nodes.push(await spawnNode(port, persistent));
    await bootstrapCluster(nodes, deadline);
    return handle;
  } catch (err) {
    // Snapshot before stopping, otherwise shutdown logs push out the cause.
    const output = describeOutput(nodes);
    await handle.stop();
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Failed to start Redis Cluster on ports ${ports.join(', ')}: ${reason}\n${output}`, {
      cause: err,
    });
  }
}

function createHandle(ports: number[], nodes: RedisNode[], persistent: boolean): RedisClusterHandle {
  let stopping: Promise<void> | undefined;
  return {
    nodes: ports.map((port) => ({ host: HOST, port })),
    // Memoised so repeated or concurrent calls share one shutdown.
    stop: () => (stopping ??= Promise.all(nodes.map(stopNode)).then(() => undefined)),
    async kill(only?: number) {
      await Promise.all(nodes.filter((_, i) => only === undefined || i === only).map(async (node) => {
        if (isRunning(node.child)) node.child.kill('SIGKILL');
        await node.closed;
      }));
    },
    async restart() {
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (const [i, old] of nodes.entries()) {
        if (isRunning(old.child)) continue;
        liveNodes.delete(old);
        nodes[i] = await spawnNode(old.port, persistent, old.dir);
      }
      for (const { port } of nodes) {
        await pollUntil(nodes, deadline, `redis-server :${port} to answer PING`, () =>
          withClient(port, async (c) => (await c.ping()) === 'PONG'),
        );
      }
      await pollUntil(nodes, deadline, 'cluster_state:ok on every node', () => clusterStateOk(ports));
    },
  };
}

// ---------------------------------------------------------------------------
// Ports

async function pickPorts(basePort: number | undefined): Promise<number[]> {
  if (basePort !== undefined) return fixedPorts(basePort);
  for (let attempt = 0; attempt < MAX_PORT_ATTEMPTS; attempt++) {
    const ports = randomDistinctPorts();
    if (await allPortsFree(ports)) return ports;
  }
  throw new Error(`No free port triple (with bus ports) found after ${MAX_PORT_ATTEMPTS} attempts`);
}

async function fixedPorts(basePort: number): Promise<number[]> {
  const ports = Array.from({ length: NODE_COUNT }, (_, i) => basePort + i);
  if (!(await allPortsFree(ports))) {
    throw new Error(`Ports ${ports.join(', ')} or their bus ports (+${BUS_PORT_OFFSET}) are not free`);
  }
  return ports;
}

function randomDistinctPorts(): number[] {
  const range = ephemeralRange();
  const outside = (port: number) => outsideEphemeral(port, range);
  const ports = new Set<number>();
  // Outside the ephemeral range (support/ports.ts), bus ports included: a node's port is taken
  // again after a kill. A range that covers them all leaves no choice: any port, after enough draws.
  for (let draw = 0; ports.size < NODE_COUNT; draw++) {
    const port = RANDOM_PORT_MIN + Math.floor(Math.random() * (RANDOM_PORT_MAX - RANDOM_PORT_MIN + 1));
    if ((outside(port) && outside(port + BUS_PORT_OFFSET)) || draw > 10_000) ports.add(port);
  }
  return [...ports];
}

async function allPortsFree(ports: number[]): Promise<boolean> {
  for (const port of ports) {
    if (!(await canBind(port)) || !(await canBind(port + BUS_PORT_OFFSET))) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Processes

// Nodes not yet stopped, so the exit hook can clean up if the test run dies
// without calling stop().
const liveNodes = new Set<RedisNode>();
let exitHookInstalled = false;

function trackNode(node: RedisNode): void {
  liveNodes.add(node);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous, hence SIGKILL (no waiting for a
  // graceful shutdown) and rmSync.
  process.on('exit', () => {
    for (const { child, dir } of liveNodes) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

async function spawnNode(port: number, persistent = false, existingDir?: string): Promise<RedisNode> {
  const dir = existingDir ?? (await mkdtemp(path.join(os.tmpdir(), `laurel-redis-${port}-`)));
  const child = spawn('redis-server', redisArgs(port, dir, persistent), { stdio: ['ignore', 'pipe', 'pipe'] });

  let tail = '';
  const append = (text: string) => {
    tail = (tail + text).slice(-OUTPUT_TAIL_CHARS);
  };
  // redis-server logs to stdout; stderr only carries fatal start-up errors.
  child.stdout?.on('data', (chunk: Buffer) => append(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => append(chunk.toString()));
  child.on('error', (err) => append(`[spawn error] ${err.message}\n`));

  // 'close' rather than 'exit': a process that failed to spawn emits only
  // 'error' and 'close'.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const node: RedisNode = { port, dir, child, closed, output: () => tail };
  trackNode(node);
  return node;
}

function redisArgs(port: number, dir: string, persistent: boolean): string[] {
  return [
    '--port', String(port),
    '--bind', HOST,
    '--cluster-enabled', 'yes',
    '--cluster-config-file', path.join(dir, `nodes-${port}.conf`),
    '--dir', dir,
    '--save', '',
    ...(persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    '--daemonize', 'no',
    '--cluster-node-timeout', '2000',
  ];
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function stopNode(node: RedisNode): Promise<void> {
  if (isRunning(node.child)) {
    node.child.kill('SIGTERM');
    const exited = await withTimeout(node.closed, KILL_GRACE_MS).then(
      () => true,
      () => false,
    );
    if (!exited) {
      node.child.kill('SIGKILL');
      await node.closed;
    }
  }
  await rm(node.dir, { recursive: true, force: true });
  liveNodes.delete(node);
}

function describeOutput(nodes: RedisNode[]): string {
  return nodes
    .map((n) => `--- redis-server :${n.port} (last output) ---\n${n.output().trimEnd() || '(no output)'}`)
    .join('\n');
}

// ---------------------------------------------------------------------------
// Cluster formation

async function bootstrapCluster(nodes: RedisNode[], deadline: number): Promise<void> {
  const ports = nodes.map((n) => n.port);
  for (const port of ports) {
    await pollUntil(nodes, deadline, `redis-server :${port} to answer PING`, () =>
      withClient(port, async (c) => (await c.ping()) === 'PONG'),
    );
  }
  await assignSlotsAndMeet(ports);
  await pollUntil(nodes, deadline, 'cluster_state:ok on every node', () => clusterStateOk(ports));
  await pollUntil(nodes, deadline, 'an ioredis Cluster client to SET/GET across slots', () =>
    clusterClientWorks(ports),
  );
}

async function assignSlotsAndMeet(ports: number[]): Promise<void> {
  for (const [i, port] of ports.entries()) {
    await withClient(port, async (c) => {
      await c.call('CLUSTER', 'ADDSLOTS', ...slotRange(i));
      // Distinct config epochs up front (as `redis-cli --cluster create` does)
      // spare the nodes an epoch-collision resolution round after MEET.
      await c.call('CLUSTER', 'SET-CONFIG-EPOCH', i + 1);
    });
  }
  // Meeting everyone from one node is enough; gossip spreads the rest.
  await withClient(ports[0], async (c) => {
    for (const port of ports.slice(1)) await c.call('CLUSTER', 'MEET', HOST, port);
  });
}

/** Slots of primary `index` out of NODE_COUNT equal contiguous shares. */
function slotRange(index: number): number[] {
  const first = Math.floor((index * SLOT_COUNT) / NODE_COUNT);
  const end = Math.floor(((index + 1) * SLOT_COUNT) / NODE_COUNT);
  return Array.from({ length: end - first }, (_, i) => first + i);
}

async function clusterStateOk(ports: number[]): Promise<boolean> {
  const infos = await Promise.all(ports.map((port) => withClient(port, (c) => c.call('CLUSTER', 'INFO'))));
  return infos.every((info) => String(info).includes('cluster_state:ok'));
}

// cluster_state:ok only says the servers agree; this checks that a real
// client gets a usable slot map and is routed to the right primaries.
async function clusterClientWorks(ports: number[]): Promise<boolean> {
  const cluster = new Cluster(
    ports.map((port) => ({ host: HOST, port })),
    { clusterRetryStrategy: () => null, redisOptions: { commandTimeout: PROBE_TIMEOUT_MS } },
  );
  cluster.on('error', () => {}); // failures surface through the commands
  try {
    for (const key of PROBE_KEYS) {
      await cluster.set(key, key);
      if ((await cluster.get(key)) !== key) return false;
      await cluster.del(key);
    }
    return true;
  } finally {
    cluster.disconnect();
  }
}

// ---------------------------------------------------------------------------
// Helpers

/** Runs `fn` with a short-lived connection that fails fast instead of retrying. */
async function withClient<T>(port: number, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => {}); // failures surface through connect()/commands
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

/**
 * Retries `check` until it returns true. Errors count as "not yet", except a
 * dead redis-server, which can never recover and so fails immediately.
 */
async function pollUntil(
  nodes: RedisNode[],
  deadline: number,
  what: string,
  check: () => Promise<boolean>,
): Promise<void> {
  let lastError: unknown;
  for (;;) {
    assertAllRunning(nodes);
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${START_TIMEOUT_MS} ms waiting for ${what}${detail}`);
    }
    try {
      if (await withTimeout(check(), Math.min(PROBE_TIMEOUT_MS, remaining))) return;
    } catch (err) {
      lastError = err;
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

function assertAllRunning(nodes: RedisNode[]): void {
  for (const { port, child } of nodes) {
    if (!isRunning(child)) {
      throw new Error(`redis-server :${port} exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
