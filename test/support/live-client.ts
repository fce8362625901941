/**
 * A live updates client for the tests (docs/live.md): a real WebSocket (undici's, the standard
 * browser interface) to `/v1/live`, every message it gets kept in order, `next()` waiting for the
 * first one not yet taken that matches; and `refusal()`, an upgrade made by hand over HTTP, whose
 * answer (status and JSON body) a refused upgrade shows.
 */
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'undici';

export interface LiveMessage {
  topic?: string;
  seq?: number;
  type?: string;
  data?: any;
  error?: string;
  code?: string;
  status?: number;
  /** Seconds to wait, on a `rate_limited` error. */
  retryAfter?: number;
}

export interface LiveClient {
  socket: WebSocket;
  /** Every message so far, in order. */
  messages: LiveMessage[];
  send(message: unknown): void;
  /** Sends text as is (or bytes, as a binary message). */
  sendRaw(data: string | Uint8Array): void;
  /** The first message not taken yet that matches (taken then), waiting up to `timeoutMs`. */
  next(match?: (m: LiveMessage) => boolean, timeoutMs?: number): Promise<LiveMessage>;
  /** Subscribes and waits for each topic's `subscribed`; answers the sequence numbers it names. */
  subscribe(topics: string[], since?: Record<string, number>): Promise<Record<string, number>>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** `ws://` of a test server's `http://` url, with the key (and tenant) in the query. */
export function liveUrl(httpUrl: string, key: string, tenant?: string, path = '/v1/live'): string {
  const q = new URLSearchParams({ key });
  if (tenant !== undefined) q.set('tenant', tenant);
  return `${httpUrl.replace(/^http/, 'ws')}${path}?${q}`;
}

export async function openLive(url: string, headers?: Record<string, string>): Promise<LiveClient> {
  const socket = new WebSocket(url, headers === undefined ? undefined : { headers } as never);
  const messages: LiveMessage[] = [];
  const taken = new Set<LiveMessage>();
  let wake: (() => void) | null = null;
  socket.addEventListener('message', (ev) => {
    messages.push(JSON.parse(String(ev.data)) as LiveMessage);
    wake?.();
  });
  let closedWith: { code: number; reason: string } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.addEventListener('close', (ev) => { closedWith = { code: ev.code, reason: ev.reason }; resolve(closedWith); wake?.(); });
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error(`live: could not open ${url}`)));
  });
  const client: LiveClient = {
    socket, messages, closed,
    send: (m) => socket.send(JSON.stringify(m)),
    sendRaw: (data) => socket.send(data),
    async next(match = () => true, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => !taken.has(m) && match(m));
        if (found !== undefined) {
          taken.add(found);
          return found;
        }
        const got = () => JSON.stringify(messages.filter((m) => !taken.has(m)));
        if (closedWith !== null) throw new Error(`live: the socket closed (${closedWith.code} ${closedWith.reason}) with no matching message; got ${got()}`);
        const left = until - Date.now();
        if (left <= 0) throw new Error(`live: no matching message within ${timeoutMs} ms; got ${got()}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => { clearTimeout(timer); resolve(); };
        });
        wake = null;
      }
    },
    async subscribe(topics, since) {
      client.send(since === undefined ? { subscribe: topics } : { subscribe: topics, since });
      const out: Record<string, number> = {};
      for (const topic of topics) out[topic] = (await client.next((m) => m.type === 'subscribed' && m.topic === topic)).seq!;
      return out;
    },
    async close() {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close();
      await closed;
    },
  };
  return client;
}

/** An upgrade sent by hand: what a refused one answers (status, JSON body), or 101. */
export function refusal(httpUrl: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(httpUrl + path, {
      headers: {
        connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...headers,
      },
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode ?? 0, body: null }); });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}
