/**
 * Child processes of a bench run: free ports, start, readiness, stop. Every child is tracked
 * until it has exited, and is killed when the runner stops for any reason (error, Ctrl-C,
 * SIGTERM), because uWS listens with SO_REUSEPORT: a leftover server on a port silently takes a
 * share of a later run's connections (docs/architecture.md, "The event hot path").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** The last lines a child wrote, shown when it fails. */
const TAIL_LINES = 40;

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
  output: string[];
}

const live = new Set<Child>();

/**
 * A port nothing listens on: the kernel picks it for a plain (non-reuseport) socket, which it
 * never does for a port held by a listener, SO_REUSEPORT or not. Closed before the child binds.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** True when something accepts TCP connections on the port. */
export function portAnswers(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Collects whole lines (a line may arrive in two chunks), keeping the last `limit`. */
function lineCollector(output: string[], limit: number): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      output.push(line);
      if (output.length > limit) output.shift();
    }
  };
}

export interface StartOptions {
  /** The child's whole environment; the runner's own when left out. */
  env?: NodeJS.ProcessEnv;
  /** How many output lines to keep; the tail is shown when the child fails. */
  keepLines?: number;
}

/** Starts a child with its output kept, not echoed, and tracks it until it exits. */
export function start(name: string, command: string, args: string[], opts: StartOptions = {}): Child {
  const proc = spawn(command, args, {
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = lineCollector(output, opts.keepLines ?? TAIL_LINES);
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<number | string>((resolve) => {
    // 'close' (not 'exit') fires after the output streams ended, so `output` is complete.
    proc.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    proc.once('error', (err) => { output.push(`cannot start ${command}: ${err.message}`); resolve('spawn-error'); });
  });
  const child: Child = { name, proc, exited, output };
  live.add(child);
  void exited.then(() => live.delete(child));
  return child;
}

/** Starts `node [nodeArgs] <script> [args]`: the bench servers and laurel's cli. */
export function startNode(name: string, script: string, args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Child {
  return start(name, process.execPath, [...nodeArgs, script, ...args], { env });
}

function alive(child: Child): boolean {
  return child.proc.exitCode === null && child.proc.signalCode === null;
}

/**
 * Polls `GET <url>` until it answers 200. Fails early when the child exits, and after `timeoutMs`.
 */
export async function waitReady(child: Child, url: string, signal: AbortSignal, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    if (!alive(child)) throw new Error(`${child.name} exited before it was ready:\n${child.output.join('\n')}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(2000)]) });
      last = `HTTP ${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (err) {
      signal.throwIfAborted();
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${child.name} not ready after ${timeoutMs} ms (${last}):\n${child.output.join('\n')}`);
}

/**
 * Stops a child the way an operator would (SIGTERM: close the listen socket, drain, quit Redis)
 * and kills it when it does not exit within `graceMs`. Resolves once it has exited.
 */
export async function stop(child: Child, graceMs = 12_000): Promise<void> {
  if (alive(child)) child.proc.kill('SIGTERM');
  const timer = setTimeout(() => { if (alive(child)) child.proc.kill('SIGKILL'); }, graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Stops every child still running (on an error path or a signal). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => stop(c, 3000)));
}

/**
 * Last resort: on process exit nothing asynchronous runs any more, so SIGKILL whatever is left.
 */
process.once('exit', () => {
  for (const c of live) if (alive(c)) c.proc.kill('SIGKILL');
});

/** The line a bench child reports its result on, as JSON after it. */
export const RESULT_MARKER = 'BENCH_RESULT ';

/**
 * Runs a bench child (wrk, the open-loop client) to its end and answers the JSON it reported after
 * RESULT_MARKER; an abort stops it.
 */
export async function runReporting<T>(label: string, command: string, args: string[], signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  const child = start(label, command, args, { keepLines: 200 });
  const onAbort = () => void stop(child, 1000);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const code = await child.exited;
    signal.throwIfAborted();
    const line = child.output.find((l) => l.startsWith(RESULT_MARKER));
    if (code !== 0 || line === undefined) throw new Error(`${label} failed (exit ${code}):\n${child.output.join('\n')}`);
    return JSON.parse(line.slice(RESULT_MARKER.length)) as T;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

