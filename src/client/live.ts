/**
 * laurel's live updates client (docs/live.md), for browsers and Node.js: one WebSocket to
 * `/v1/live`, the topics subscribed again after every reconnection with `since` (the last
 * sequence number had of each), so that nothing is missed while the history holds it (else the
 * handler gets a `resync`); reconnection with exponential backoff and jitter; a message that comes
 * again (numbered at or below the last one had) skipped. It imports nothing: a browser's
 * `WebSocket`, Node.js 22's global one, or any class of that interface (undici's, `ws`'s) passed as
 * `WebSocket`.
 *
 *   const live = new LiveClient({ url: 'wss://laurel.example.com/v1/live', key: userKey });
 *   const stop = live.subscribe('user:ada', (m) => { if (m.type === 'resync') reload(); else show(m); });
 */

/** A message of a topic: a change (`type` a webhook event type), or `resync`. */
export interface LiveMessage {
  topic: string;
  seq: number;
  type: string;
  data: any;
}

/** A refused message (`{ error, code, status, topic? }`). */
export interface LiveError {
  error: string;
  code: string;
  status: number;
  topic?: string;
}

/** What the client needs of a WebSocket (the browser's interface). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketClass = new (url: string) => SocketLike;

export interface LiveOptions {
  /** `ws://` or `wss://` and the path: `wss://laurel.example.com/v1/live`. */
  url: string;
  /** The API key (a key scoped to one user, in an end-user app); sent as `?key=`. */
  key: string;
  /** The tenant's id (its customerId); sent as `?tenant=`. */
  tenant?: string;
  /** The WebSocket class; the global one by default. */
  WebSocket?: SocketClass;
  /** The first wait before reconnecting, and the longest (ms): 500 and 30,000 by default. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Refused messages (a topic the key may not follow, an unknown board). */
  onError?: (error: LiveError) => void;
  /** A topic subscribed (again, after each reconnection): its last sequence number then. */
  onSubscribed?: (topic: string, seq: number) => void;
  /** The connection's state as it changes. */
  onState?: (state: LiveState) => void;
}

export type LiveState = 'connecting' | 'open' | 'waiting' | 'closed';

type Handler = (message: LiveMessage) => void;

const OPEN = 1;
/** The topics and bytes (UTF-8) of a client's message the server takes at most (docs/live.md, "Messages" and "Limits"). */
const MAX_TOPICS = 100;
const MAX_MESSAGE = 64 * 1024;
const encoder = new TextEncoder();

export class LiveClient {
  private readonly opts: LiveOptions;
  private readonly Socket: SocketClass;
  private readonly handlers = new Map<string, Set<Handler>>();
  /** The last sequence number had of each topic. */
  private readonly last = new Map<string, number>();
  private socket: SocketLike | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private current: LiveState = 'closed';

  constructor(opts: LiveOptions) {
    this.opts = opts;
    const Socket = opts.WebSocket ?? (globalThis as { WebSocket?: SocketClass }).WebSocket;
    if (Socket === undefined) throw new Error('laurel live: no WebSocket class here; pass one as `WebSocket` (Node.js 20: undici\'s or ws\'s)');
    this.Socket = Socket;
    this.connect();
  }

  get state(): LiveState {
    return this.current;
  }

  /** Follows a topic (`user:<id>`, `leaderboard:<key>`, `league:<key>`); answers a function that stops following it. */
  subscribe(topic: string, handler: Handler): () => void {
    let set = this.handlers.get(topic);
    if (set === undefined) {
      this.handlers.set(topic, (set = new Set()));
      this.sendSubscribe([topic]);
    }
    set.add(handler);
    return () => {
      const now = this.handlers.get(topic);
      if (now === undefined || !now.delete(handler) || now.size > 0) return;
      this.handlers.delete(topic);
      this.last.delete(topic);
      if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify({ unsubscribe: [topic] }));
    };
  }

  /** The last sequence number had of a topic (undefined before its first). */
  lastSeq(topic: string): number | undefined {
    return this.last.get(topic);
  }

  /** Closes the connection for good. */
  close(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.socket?.close(1000, 'closed by the client');
    this.setState('closed');
  }

  private setState(state: LiveState): void {
    if (this.current === state) return;
    this.current = state;
    this.opts.onState?.(state);
  }

  private connect(): void {
    if (this.stopped) return;
    const q = new URLSearchParams({ key: this.opts.key });
    if (this.opts.tenant !== undefined) q.set('tenant', this.opts.tenant);
    const socket = new this.Socket(`${this.opts.url}${this.opts.url.includes('?') ? '&' : '?'}${q}`);
    this.socket = socket;
    this.setState('connecting');
    socket.onopen = () => {
      this.setState('open');
      if (this.handlers.size === 0) this.attempt = 0;
      this.sendSubscribe([...this.handlers.keys()]);
    };
    socket.onmessage = (ev) => this.received(String(ev.data));
    socket.onerror = () => undefined;
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      this.setState('waiting');
      const base = Math.min(this.opts.maxDelayMs ?? 30_000, (this.opts.minDelayMs ?? 500) * 2 ** this.attempt);
      this.attempt = Math.min(this.attempt + 1, 16);
      // Jitter: many clients cut at once do not come back at once.
      this.timer = setTimeout(() => { this.timer = null; this.connect(); }, base / 2 + Math.random() * (base / 2));
    };
  }

  /** Subscribes `topics` in messages of at most 100 topics and 64 KiB (the server closes a socket sending a longer one). */
  private sendSubscribe(topics: string[]): void {
    const socket = this.socket;
    if (topics.length === 0 || socket?.readyState !== OPEN) return;
    let part: string[] = [];
    let text = '';
    for (const topic of topics) {
      const next = this.subscribeMessage([...part, topic]);
      if (part.length > 0 && (part.length === MAX_TOPICS || encoder.encode(next).length > MAX_MESSAGE)) {
        socket.send(text);
        part = [topic];
        text = this.subscribeMessage(part);
      } else {
        part.push(topic);
        text = next;
      }
    }
    socket.send(text);
  }

  /** A subscribe message for `topics`, each resumed from the last sequence number had. */
  private subscribeMessage(topics: string[]): string {
    const since: Record<string, number> = {};
    for (const t of topics) {
      const seq = this.last.get(t);
      if (seq !== undefined) since[t] = seq;
    }
    return JSON.stringify(Object.keys(since).length > 0 ? { subscribe: topics, since } : { subscribe: topics });
  }

  private received(text: string): void {
    let m: Partial<LiveMessage & LiveError>;
    try {
      m = JSON.parse(text) as Partial<LiveMessage & LiveError>;
    } catch {
      return;
    }
    if (typeof m.error === 'string') {
      this.opts.onError?.(m as LiveError);
      return;
    }
    const topic = m.topic;
    if (typeof topic !== 'string' || typeof m.seq !== 'number') return;
    const last = this.last.get(topic);
    if (m.type === 'subscribed') {
      // Connected: the next wait starts short again.
      this.attempt = 0;
      if (last === undefined || m.seq > last) this.last.set(topic, m.seq);
      this.opts.onSubscribed?.(topic, m.seq);
      return;
    }
    if (last !== undefined && m.seq <= last) return;
    this.last.set(topic, m.seq);
    for (const h of this.handlers.get(topic) ?? []) h(m as LiveMessage);
  }
}
