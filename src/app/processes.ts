/**
 * Several api processes on one port (LAUREL_API_PROCESSES > 1). The primary (`laurel start` or
 * `laurel api`) has done the start-up's work once (src/app/prepare.ts); it forks each api process
 * as `laurel api-process`, with its own Node flags, and waits until each listens. uWebSockets.js
 * binds with SO_REUSEPORT on Linux, so they all listen on PORT and the kernel spreads the
 * connections over them; the primary has found the port free first, or picked one for PORT=0
 * (src/app/port.ts), so `settings.port` is never 0 here.
 *
 * An api process that exits while the primary runs is started again, after 1 s, doubling for
 * each exit in a row up to 30 s (a process that lived a minute starts the count over), so the
 * others go on serving meanwhile; one that exits before the first start-up is complete stops them
 * all (a setting or the port is wrong: starting again would fail again). close() sends SIGTERM to
 * each and waits for it to finish its requests; the primary's exit, whatever its cause, sends
 * SIGTERM to any left, and an api process whose primary is gone stops by itself (src/app/shutdown.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Metrics } from '../lib/metrics.js';
import type { Settings } from '../lib/settings.js';
import { MetricsGatherer } from './metrics-ipc.js';
import { SHUTDOWN_LIMIT_MS } from './shutdown.js';
import { LaurelError } from '../lib/errors.js';

/** The command line's entry point, which the api processes run. */
const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

/** The command of an api process started by a primary (not for operators). */
export const API_PROCESS_COMMAND = 'api-process';

/** What an api process sends its primary once it listens. */
export interface ReadyMessage {
  type: 'laurel:listening';
  port: number;
}

export function isReadyMessage(m: unknown): m is ReadyMessage {
  return typeof m === 'object' && m !== null && (m as ReadyMessage).type === 'laurel:listening';
}

/**
 * The api processes a command runs: LAUREL_API_PROCESSES, or one per core, less the core the
 * workers take when they run beside them (`laurel start`): more processes than cores serve fewer
 * requests (docs/operations.md, "Several api processes").
 */
export function apiProcessCount(settings: Settings, besideWorkers: boolean): number {
  if (settings.apiProcesses !== null) return settings.apiProcesses;
  const cores = Math.min(availableParallelism(), 256);
  return besideWorkers ? Math.max(1, cores - 1) : cores;
}

/** An api process stopped before the first start-up was complete. */
export class ApiProcessError extends LaurelError {
  constructor(message: string) { super('api_process_failed', message); }
}

/** How long after its exit an api process is started again: 1 s, doubling per exit in a row, up to 30 s. */
export function restartDelay(exitsInARow: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.min(exitsInARow, 5));
}

/** A process that served this long before it exited starts the count of exits in a row over. */
const STEADY_MS = 60_000;

/** SIGKILL for an api process still running this long after its SIGTERM (it stops itself by SHUTDOWN_LIMIT_MS). */
const KILL_AFTER_MS = SHUTDOWN_LIMIT_MS + 1000;

/** Longest the primary's own shutdown may take: its api processes', then the workers'. */
export const PRIMARY_SHUTDOWN_LIMIT_MS = KILL_AFTER_MS + 4000;

export interface ApiProcesses {
  port: number;
  /** The api processes running now. */
  pids(): number[];
  /**
   * Sends SIGTERM to every api process and waits until each has exited (SIGKILL past
   * KILL_AFTER_MS); throws when one did not exit with 0.
   */
  close(): Promise<void>;
}

interface Slot {
  child: ChildProcess | null;
  /** When its process said it listens; null before. */
  listeningAt: number | null;
  exitsInARow: number;
  restart: NodeJS.Timeout | null;
}

const exitText = (code: number | null, signal: NodeJS.Signals | null) => (signal !== null ? `signal ${signal}` : `code ${code}`);

/**
 * `own`: the primary's metrics, added to every scrape's answer (under `laurel start`, the
 * workers'); null under `laurel api` (src/app/metrics-ipc.ts).
 */
export async function startApiProcesses(settings: Settings, log: Logger, count: number, own: Metrics | null = null): Promise<ApiProcesses> {
  const { port } = settings;
  const env = { ...process.env, PORT: String(port) };
  const slots: Slot[] = Array.from({ length: count }, () => ({ child: null, listeningAt: null, exitsInARow: 0, restart: null }));
  let closing = false;
  let starting = true;
  let failStart: (err: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => { failStart = reject; });
  failed.catch(() => undefined);

  const live = () => slots.flatMap((s) => (s.child !== null && s.child.exitCode === null && s.child.signalCode === null ? [s.child] : []));
  const gatherer = new MetricsGatherer(own, live);
  const signalAll = (signal: NodeJS.Signals) => () => { for (const c of live()) c.kill(signal); };
  const killAll = signalAll('SIGKILL');
  // Whatever ends the primary (an uncaught error, its own time limit), its api processes stop too,
  // answering their requests in flight (they stop as well when the IPC channel closes).
  const stopAll = signalAll('SIGTERM');
  process.once('exit', stopAll);

  /** Starts the slot's process; resolves once it listens. */
  function spawnInto(slot: Slot): Promise<void> {
    const child = fork(CLI, [API_PROCESS_COMMAND], { env, execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    slot.child = child;
    slot.listeningAt = null;
    return new Promise<void>((resolve) => {
      child.on('message', (m) => {
        if (gatherer.onMessage(child, m)) return;
        if (!isReadyMessage(m) || slot.listeningAt !== null) return;
        slot.listeningAt = Date.now();
        resolve();
      });
      child.once('exit', (code, signal) => {
        if (closing) return;
        const lived = slot.listeningAt === null ? 0 : Date.now() - slot.listeningAt;
        if (starting) {
          failStart(new ApiProcessError(`an api process stopped before it listened (${exitText(code, signal)}); its output above says why`));
          return;
        }
        if (lived >= STEADY_MS) slot.exitsInARow = 0;
        const delay = restartDelay(slot.exitsInARow++);
        log.error({ apiProcess: child.pid, code, signal, restartInMs: delay }, 'api process exited; starting another');
        slot.restart = setTimeout(() => {
          slot.restart = null;
          if (closing) return;
          void spawnInto(slot).then(() => log.info({ apiProcess: slot.child?.pid }, 'api process started again'));
        }, delay);
      });
    });
  }

  async function close(): Promise<void> {
    closing = true;
    for (const s of slots) if (s.restart) clearTimeout(s.restart);
    const children = live();
    const exits = children.map((c) => new Promise<string | null>((resolve) => {
      c.once('exit', (code, signal) => resolve(code === 0 ? null : `api process ${c.pid} exited with ${exitText(code, signal)}`));
    }));
    for (const c of children) c.kill('SIGTERM');
    const killer = setTimeout(killAll, KILL_AFTER_MS);
    const problems = (await Promise.all(exits)).filter((p): p is string => p !== null);
    clearTimeout(killer);
    process.removeListener('exit', stopAll);
    if (problems.length > 0) throw new Error(problems.join('; '));
  }

  try {
    await Promise.race([Promise.all(slots.map(spawnInto)), failed]);
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  starting = false;
  const pids = () => live().flatMap((c) => (c.pid === undefined ? [] : [c.pid]));
  log.info({ host: settings.host, port, processes: count, apiProcesses: pids() }, 'laurel api processes listening');
  return { port, pids, close };
}
