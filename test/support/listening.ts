/**
 * The port a laurel process of a test listens on, read from its log. A test starts laurel with
 * PORT=0 (LAUREL_WORKERS_PORT=0 for the workers' health endpoint): laurel takes the kernel's pick
 * as it starts, and says which. A port found free by the test and handed over could be taken by
 * any other process in between. The lines are logged at info: the process needs LOG_LEVEL=info.
 */
import type { ChildProcess } from 'node:child_process';
import { HANG_MS } from './hang.js';

/** The lines that say which port a process bound, and the field of the line that holds it. */
export const LISTENING = {
  /** The primary of `laurel start`, or of `laurel api` with several api processes, once they all listen. */
  processes: { message: 'laurel api processes listening', field: 'port' },
  /** `laurel api` with one api process, and each api process of several (all on the primary's port). */
  api: { message: 'laurel api listening', field: 'port' },
  /** The workers (`laurel workers`, or in the primary of `laurel start`): their health endpoint's port (LAUREL_WORKERS_PORT). */
  workers: { message: 'laurel workers running', field: 'healthPort' },
} as const;

export type Listener = keyof typeof LISTENING;

/** The ports of every line of `listener` in a log, in order (a line still being written is left for the next look). */
export function listeningPorts(output: string, listener: Listener): number[] {
  const { message, field } = LISTENING[listener];
  const ports: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes(`"msg":"${message}"`)) continue;
    const port = new RegExp(`"${field}":(\\d+)`).exec(line)?.[1];
    if (port !== undefined && Number(port) > 0) ports.push(Number(port));
  }
  return ports;
}

/** The port of the first line of `listener` in a log (0: not there yet). */
export function listeningPort(output: string, listener: Listener): number {
  return listeningPorts(output, listener)[0] ?? 0;
}

/**
 * The port `run` says `listener` bound, once it has said it; fails, with its output, if it exits
 * first or HANG_MS pass.
 */
export async function portOf(run: { child: ChildProcess; output: () => string }, listener: Listener): Promise<number> {
  for (const deadline = Date.now() + HANG_MS; ;) {
    const port = listeningPort(run.output(), listener);
    if (port !== 0) return port;
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      throw new Error(`exited (${run.child.exitCode ?? run.child.signalCode}) before it said "${LISTENING[listener].message}" with its port: ${run.output()}`);
    }
    if (Date.now() > deadline) throw new Error(`"${LISTENING[listener].message}" with its port not said in ${HANG_MS} ms: ${run.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
