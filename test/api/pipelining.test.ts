/**
 * Requests pipelined on one connection (src/http/pipelining.ts), over raw sockets against the real
 * server, its Redis behind a TCP proxy that the test stalls to hold an answer back: a request sent
 * behind a write whose answer is awaited is answered after it, in order; requests that uWS parses
 * while an answer is awaited (sent in the same write, queued two deep, or behind a read) close the
 * connection, and none of them is applied, so the client's retry counts each event once. Every
 * answer that arrives is whole, and each event is applied exactly when its 201 arrives.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Answer { status: number; body: string }

/** Reads whole HTTP/1.1 answers (Content-Length framed) off the front of `data`. */
function answersOf(data: Buffer): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return answers;
    const head = data.subarray(at, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (data.length < headEnd + 4 + length) return answers;
    answers.push({ status: Number(head.slice(9, 12)), body: data.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8') });
    at = headEnd + 4 + length;
  }
}

/** A raw connection: what it was answered, and whether the server closed it. */
class Connection {
  readonly socket: net.Socket;
  private data = Buffer.alloc(0);
  closed = false;
  private readonly waiters: (() => void)[] = [];

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d) => { this.data = Buffer.concat([this.data, d]); this.wake(); });
    socket.on('close', () => { this.closed = true; this.wake(); });
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get answers(): Answer[] {
    return answersOf(this.data);
  }

  /** One write: every byte reaches the server in one segment (loopback), so uWS reads them at once. */
  write(bytes: string): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(Buffer.from(bytes, 'utf8'), (err) => (err ? reject(err) : resolve())));
  }

  /** Waits until `n` answers arrived or the server closed the connection; fails past `ms`. */
  async until(n: number, ms = 3000): Promise<Answer[]> {
    const deadline = Date.now() + ms;
    while (this.answers.length < n && !this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.answers.length} of ${n} answers after ${ms} ms, the connection open`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
    return this.answers;
  }

  close(): void {
    this.socket.destroy();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('pipelined requests', () => {
  let proxy: TcpProxy;
  let s: TestServer;
  let port: number;

  beforeAll(async () => {
    const redis = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    redis.hostname = '127.0.0.1';
    redis.port = String(proxy.port);
    s = await startTestServer({ env: { REDIS_URL: redis.toString() } });
    port = Number(new URL(s.url).port);
    await s.metrics('lessons');
  });
  afterAll(async () => {
    proxy?.flow();
    await s?.close();
    await proxy?.close();
  });

  const event = (user: string, value = 1): string => {
    const body = JSON.stringify({ user: { id: user }, value });
    return `POST /api/metrics/lessons/event HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${s.adminKey}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const total = (user: string): string =>
    `GET /api/users/${user}/metrics/lessons HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${s.adminKey}\r\n\r\n`;
  /** The user's total, read through the API on a connection of its own: 0 for a user no event made. */
  const totalOf = async (user: string): Promise<number> => {
    const r = await s.request('GET', `/api/users/${user}/metrics/lessons`);
    if (r.status === 404) return 0;
    expect(r.status, r.text).toBe(200);
    return r.body.current as number;
  };
  /** Holds Redis until the server has sent it a command naming `user`: the request for it is read and running. */
  const heldFor = async (user: string): Promise<void> => {
    for (let i = 0; i < 1000 && !proxy.held().includes(user); i++) await sleep(5);
    expect(proxy.held().includes(user), `no command for ${user} reached the stalled Redis`).toBe(true);
  };

  it('answers a read sent behind a write whose answer is awaited, after it, in order', async () => {
    const c = await Connection.open(port);
    try {
      proxy.stall();
      await c.write(event('behind'));
      await heldFor('behind');
      // The event is running, its answer held back with Redis; a read follows on the connection.
      await c.write(total('behind'));
      await sleep(100);
      expect(c.closed, 'the server closed the connection').toBe(false);
      proxy.flow();
      const answers = await c.until(2);
      expect(answers.map((a) => a.status), JSON.stringify(answers)).toEqual([201, 200]);
      expect(JSON.parse(answers[1].body).current).toBe(1);
      // The connection carries on.
      await c.write(event('behind'));
      expect((await c.until(3))[2].status).toBe(201);
    } finally {
      proxy.flow();
      c.close();
    }
    expect(await totalOf('behind')).toBe(2);
  });

  it('answers a POST pipelined behind a POST whose answer is awaited, each applied once', async () => {
    const c = await Connection.open(port);
    try {
      proxy.stall();
      await c.write(event('two-posts', 1));
      await heldFor('two-posts');
      await c.write(event('two-posts', 10));
      await sleep(100);
      proxy.flow();
      const answers = await c.until(2);
      expect(answers.map((a) => [a.status, JSON.parse(a.body).total]), JSON.stringify(answers)).toEqual([[201, 1], [201, 11]]);
    } finally {
      proxy.flow();
      c.close();
    }
    expect(await totalOf('two-posts')).toBe(11);
  });

  it('closes a connection whose POST came in one write with another request, applying neither', async () => {
    for (const [user, second] of [['with-get', total('with-get')], ['with-post', event('with-post', 10)]]) {
      const c = await Connection.open(port);
      try {
        await c.write(event(user) + second);
        expect(await c.until(2), user).toEqual([]);
        expect(c.closed).toBe(true);
      } finally {
        c.close();
      }
      // Nothing was applied: the client's retry, on a connection of its own, counts the event once.
      expect(await totalOf(user), user).toBe(0);
      await s.event('lessons', user, 1);
      expect(await totalOf(user), user).toBe(1);
    }
  });

  it('applies nothing of requests pipelined two deep behind an awaited answer, and answers that one', async () => {
    const c = await Connection.open(port);
    try {
      proxy.stall();
      await c.write(event('deep', 1));
      await heldFor('deep');
      // Two more in the kernel while the connection is paused: uWS reads them in one read after the answer.
      await c.write(event('deep', 10));
      await c.write(total('deep'));
      await sleep(100);
      proxy.flow();
      const answers = await c.until(3);
      expect(c.closed).toBe(true);
      expect(answers.map((a) => a.status), JSON.stringify(answers)).toEqual([201]);
    } finally {
      proxy.flow();
      c.close();
    }
    // The answered event, and only it.
    expect(await totalOf('deep')).toBe(1);
  });

  it('answers requests pipelined in one write in order, or closes the connection answering none of them', async () => {
    await s.event('lessons', 'reader', 1);
    const c = await Connection.open(port);
    try {
      await c.write(total('reader') + total('reader') + total('reader'));
      const answers = await c.until(3);
      // uWS closes the connection for a request parsed while an answer is awaited: every read
      // awaits Redis, so none is answered; nothing is applied.
      expect(answers).toEqual([]);
      expect(c.closed).toBe(true);
    } finally {
      c.close();
    }
  });

  it('closes a connection on which a request follows a read whose answer is awaited, applying nothing', async () => {
    await s.event('lessons', 'after-read', 1);
    const c = await Connection.open(port);
    try {
      proxy.stall();
      await c.write(total('after-read'));
      await heldFor('after-read');
      // A read is not paused (pipelining.ts): uWS reads the event while the read's answer is awaited.
      await c.write(event('after-read', 10));
      await c.until(1);
      expect(c.closed).toBe(true);
      proxy.flow();
      expect(c.answers).toEqual([]);
    } finally {
      proxy.flow();
      c.close();
    }
    expect(await totalOf('after-read')).toBe(1);
  });

  it('answers requests one after another on one connection, its reading resumed after each answer', async () => {
    const c = await Connection.open(port);
    try {
      for (let i = 1; i <= 10; i++) {
        await c.write(i % 2 === 1 ? event('keep-alive') : total('keep-alive'));
        const answers = await c.until(i);
        expect(answers[i - 1].status, answers[i - 1].body).toBe(i % 2 === 1 ? 201 : 200);
      }
      expect(c.closed).toBe(false);
    } finally {
      c.close();
    }
    expect(await totalOf('keep-alive')).toBe(5);
  });
});
