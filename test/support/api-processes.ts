/**
 * laurel's api as `npm start` runs it: the built command line (`laurel api`) with the default
 * number of api processes (one per core; two at least) on one port, the kernel spreading the
 * connections over them (SO_REUSEPORT). Each request goes on a connection of its own, so that any
 * of them may take it; `connections()` opens several at once ahead of the requests they will carry,
 * to send them all the moment an answer arrives.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { runCli, type CliRun } from './cli.js';
import { listeningPort } from './listening.js';

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Record<string, string>;
}

export interface Sent {
  body?: unknown;
  /** X-API-KEY; the admin key unless given, none for null. */
  key?: string | null;
  tenant?: string;
}

export interface ApiProcesses {
  port: number;
  url: string;
  adminKey: string;
  prefix: string;
  /** How many api processes serve the port. */
  count: number;
  run: CliRun;
  /** One request on a connection of its own. */
  request<T = any>(method: string, path: string, sent?: Sent): Promise<Answer<T>>;
  /**
   * `n` connections, open (each accepted by one of the processes, as the kernel chose) before any
   * request is written on them; `send` writes one request on each at once (what `sent` says, or
   * gives for the connection's index) and answers what each got.
   */
  connections(n: number): Promise<{ send<T = any>(method: string, path: string, sent?: Sent | ((i: number) => Sent)): Promise<Answer<T>[]> }>;
  /** Stops the processes (the caller deletes the prefix's keys). */
  close(): Promise<void>;
}

/** The api processes `npm start` runs here: one per core, and two at least so that there are several. */
export function defaultProcessCount(): number {
  return Math.max(2, availableParallelism());
}

function headersOf(adminKey: string, sent: Sent, payload: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const key = sent.key === undefined ? adminKey : sent.key;
  if (key !== null) headers['x-api-key'] = key;
  if (sent.tenant !== undefined) headers['tenant-id'] = sent.tenant;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return headers;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The answer in `raw` once it is whole (its head and `Content-Length` bytes of body), else null. */
function answerOf(raw: Buffer): Answer | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.subarray(end + 4);
  if (body.length < Number(headers['content-length'] ?? 0)) return null;
  const text = body.toString('utf8');
  return { status: Number(head[0].split(' ')[1]), body: parsed(text), text, headers };
}

/** A connection, open; `answer` resolves with the first answer read off it. */
async function openConnection(port: number): Promise<{ socket: Socket; answer: Promise<Answer> }> {
  const socket = connect(port, '127.0.0.1');
  let raw = Buffer.alloc(0);
  const answer = new Promise<Answer>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      raw = Buffer.concat([raw, d]);
      const a = answerOf(raw);
      if (a === null) return;
      socket.destroy();
      resolve(a);
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed before a whole answer: ${raw.toString()}`)));
  });
  answer.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, answer };
}

/**
 * Starts `laurel api` (or `command`: `laurel start`, the workers in the primary) on a port of the
 * kernel's pick with `env` over a prefix and admin key of its own; resolves once it serves.
 */
export async function startApiProcesses(env: Record<string, string> = {}, command: 'api' | 'start' = 'api'): Promise<ApiProcesses> {
  const prefix = env.LAUREL_PREFIX ?? `t${randomBytes(5).toString('hex')}`;
  const adminKey = env.LAUREL_ADMIN_KEY ?? `procs-${randomBytes(8).toString('hex')}`;
  const count = defaultProcessCount();
  // PORT=0: laurel takes the kernel's pick as it starts, and says which; a port found free here and
  // handed over could be taken by any other process in between.
  const run = runCli([command], {
    LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey, PORT: '0', LAUREL_API_PROCESSES: String(count), LOG_LEVEL: 'info', ...env,
  });
  let port = 0;

  const request = <T = any>(method: string, path: string, sent: Sent = {}): Promise<Answer<T>> => new Promise((resolve, reject) => {
    const payload = sent.body === undefined ? undefined : JSON.stringify(sent.body);
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent: false, headers: headersOf(adminKey, sent, payload) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
        resolve({ status: res.statusCode ?? 0, body: parsed(text) as T, text, headers });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });

  // Ready once every process listens (the primary says so, with the port) and the port answers.
  for (const deadline = Date.now() + 60_000; ;) {
    if (run.child.exitCode !== null) throw new Error(`laurel ${command} exited early: ${run.output()}`);
    port = port === 0 ? listeningPort(run.output(), 'processes') : port;
    if (port !== 0) {
      const ready = await request('GET', '/ready').catch(() => null);
      if (ready?.status === 200) break;
    }
    if (Date.now() > deadline) throw new Error(`laurel ${command} did not get ready: ${run.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    port, url: `http://127.0.0.1:${port}`, adminKey, prefix, count, run, request,
    async connections(n) {
      const open = await Promise.all(Array.from({ length: n }, () => openConnection(port)));
      return {
        async send<T = any>(method: string, path: string, sent: Sent | ((i: number) => Sent) = {}): Promise<Answer<T>[]> {
          const requests = open.map((_, i) => {
            const one = typeof sent === 'function' ? sent(i) : sent;
            const payload = one.body === undefined ? undefined : JSON.stringify(one.body);
            const headers = { host: `127.0.0.1:${port}`, connection: 'close', ...headersOf(adminKey, one, payload) };
            return `${method} ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${payload ?? ''}`;
          });
          open.forEach(({ socket }, i) => socket.write(requests[i]));
          return Promise.all(open.map((c) => c.answer as Promise<Answer<T>>));
        },
      };
    },
    async close() {
      if (run.child.exitCode === null) {
        run.child.kill('SIGTERM');
        await run.exited;
      }
    },
  };
}
