/**
 * laurel's HTTP/1.1 client for webhooks (src/engine/webhooks/http1.ts, http1-response.ts, through
 * src/engine/webhooks/post.ts) against real servers on loopback: node:http (keep-alive, pipelined
 * requests answered in order, a body as received byte for byte), a raw TCP server writing answers
 * as receivers may (HTTP/1.0 without a length, Content-Length, chunked with extensions and
 * trailers, interim 1xx, `Connection: close`, every byte in a write of its own), answers that break
 * the protocol (refused, the connection closed), a receiver that cannot take pipelined requests
 * (it closes the connection: those requests fail, and the origin goes one at a time), uWebSockets.js,
 * and HTTPS (a certificate the system does not trust refused; trusted, the POSTs go over TLS with
 * the host's name as SNI, pipelined).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js';
import { ResponseParser, ProtocolError } from '../../src/engine/webhooks/http1-response.js';
import { postWebhook } from '../../src/engine/webhooks/post.js';

/** A raw server: `answer(request head, socket)` writes what it likes for each request it reads. */
async function rawServer(answer: (head: string, socket: Socket, n: number) => void): Promise<{ url: string; server: TcpServer; heads: string[] }> {
  const heads: string[] = [];
  const server = createTcpServer((socket) => {
    let buffered = '';
    socket.on('data', (c) => {
      buffered += c.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        heads.push(head);
        answer(head, socket, heads.length);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, heads };
}

/** Writes `text` a byte at a time, each in a write of its own, a tick apart. */
async function trickle(socket: Socket, text: string): Promise<void> {
  for (const ch of text) {
    socket.write(ch);
    await new Promise((r) => setImmediate(r));
  }
}

describe('the answer parser', () => {
  const parse = (pieces: string[]) => {
    const p = new ResponseParser();
    for (const piece of pieces) {
      const a = p.feed(Buffer.from(piece, 'latin1'));
      if (a !== null) return a;
    }
    return p.closed();
  };
  const bytewise = (text: string) => [...text];

  it('reads the status and the framing, in pieces of any size', () => {
    const answers: [string, { status: number; keepAlive: boolean }][] = [
      ['HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n', { status: 204, keepAlive: true }],
      ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello', { status: 200, keepAlive: true }],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: y\r\n\r\n', { status: 200, keepAlive: true }],
      ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n', { status: 202, keepAlive: true }],
      ['HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno', { status: 500, keepAlive: false }],
      ['HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', { status: 200, keepAlive: false }],
      ['HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok', { status: 200, keepAlive: true }],
      ['HTTP/1.1 410 Gone\r\nContent-Length: 3, 3\r\n\r\nbye', { status: 410, keepAlive: true }],
    ];
    for (const [text, want] of answers) {
      expect(parse([text]), text).toMatchObject({ ...want, extra: 0 });
      expect(parse(bytewise(text)), text).toMatchObject({ ...want, extra: 0 });
    }
    // No framing: the body runs to the close, and the answer ends there.
    expect(parse(['HTTP/1.0 200 OK\r\n\r\nbody', 'more'])).toEqual({ status: 200, keepAlive: false, keepAliveMs: null, extra: 0 });
    // The receiver's Keep-Alive timeout; the next answer's bytes, counted.
    expect(parse(['HTTP/1.1 204 No Content\r\nKeep-Alive: timeout=5, max=100\r\n\r\nHTTP/1.1 204'])).toEqual({ status: 204, keepAlive: true, keepAliveMs: 5000, extra: 12 });
  });

  it('refuses what breaks the protocol', () => {
    for (const text of [
      'HTTP/2 200\r\n\r\n', 'hello\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX', 'HTTP/1.1 101 Switching Protocols\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon\r\n\r\n', `HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70_000)}\r\n\r\n`,
    ]) {
      expect(() => parse([text]), text.slice(0, 40)).toThrow(ProtocolError);
    }
  });
});

describe('webhook POSTs over laurel\'s HTTP/1.1 connections', () => {
  let server: Server;
  let url: string;
  const bodies: string[] = [];
  const sockets = new Set<unknown>();
  const raws: TcpServer[] = [];
  let uws: us_listen_socket | undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        const wait = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('wait') ?? 0);
        setTimeout(() => { res.statusCode = 201; res.end(req.url); }, wait);
      });
    });
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    for (const r of raws) r.close();
    if (uws !== undefined) us_listen_socket_close(uws);
  });

  it('sends each body as given, answers in order, over a few connections kept open, pipelined once the receiver earned it', async () => {
    const body = (n: number) => JSON.stringify({ n, text: 'é ✓ "quoted" \\ \n', pad: 'x'.repeat(n * 37) });
    // One at a time first (the origin not trusted yet), then 200 at once.
    for (let n = 0; n < 20; n++) expect(await postWebhook(`${url}/one?n=${n}`, body(n), { 'content-type': 'application/json' }, 5000, true)).toEqual({ status: 201 });
    const before = sockets.size;
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => postWebhook(`${url}/many?n=${i}&wait=${i % 7}`, body(i + 20), {}, 5000, true)));
    expect(all).toEqual(Array(200).fill({ status: 201 }));
    expect(bodies.slice(-220).sort()).toEqual(Array.from({ length: 220 }, (_, n) => body(n)).sort());
    // At most 16 connections (fewer: up to 8 requests each).
    expect(sockets.size - before).toBeLessThanOrEqual(16);
    expect(sockets.size).toBeLessThanOrEqual(16 + 1);
  });

  it('reads the answers receivers write, however they frame and split them, and keeps the connections that may be kept', async () => {
    let connections = 0;
    const raw = await rawServer((head, socket, n) => {
      const path = head.split(' ')[1];
      const answers: Record<string, string> = {
        '/length': 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world',
        '/chunked': 'HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n4;a=b\r\nwiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n',
        '/interim': 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n',
        '/gone': 'HTTP/1.1 410 Gone\r\ncontent-length: 0\r\n\r\n',
      };
      if (path === '/http10') {
        socket.end('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nno length: to the close');
        return;
      }
      if (path === '/close') {
        void trickle(socket, 'HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbusy').then(() => socket.end());
        return;
      }
      void trickle(socket, answers[path] ?? `HTTP/1.1 500 Unknown ${n}\r\ncontent-length: 0\r\n\r\n`);
    });
    raws.push(raw.server);
    raw.server.on('connection', () => connections++);
    for (const [path, status] of [['/length', 200], ['/chunked', 202], ['/interim', 204], ['/gone', 410], ['/length', 200]] as const) {
      expect(await postWebhook(`${raw.url}${path}`, '{}', {}, 5000, true), path).toEqual({ status });
    }
    expect(connections).toBe(1);
    expect(await postWebhook(`${raw.url}/http10`, '{}', {}, 5000, true)).toEqual({ status: 200 });
    expect(await postWebhook(`${raw.url}/close`, '{}', {}, 5000, true)).toEqual({ status: 503 });
    expect(await postWebhook(`${raw.url}/length`, '{}', {}, 5000, true)).toEqual({ status: 200 });
    // The 1.0 answer and the close each closed their connection.
    expect(connections).toBe(3);
    // What was sent: the request line, the Host, the length, the headers given, the body.
    expect(raw.heads[0]).toMatch(/^POST \/length HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nuser-agent: laurel\r\ncontent-length: 2$/);
  });

  it('fails a request whose answer breaks the protocol or never comes whole, and serves on', async () => {
    const raw = await rawServer((head, socket) => {
      const path = head.split(' ')[1];
      if (path === '/garbage') socket.write('SMTP ready\r\n\r\n');
      else if (path === '/cut') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
      else if (path === '/reset') socket.destroy();
      else socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    raws.push(raw.server);
    await expect(postWebhook(`${raw.url}/garbage`, '{}', {}, 5000, true)).rejects.toThrow(/bad status line/);
    await expect(postWebhook(`${raw.url}/cut`, '{}', {}, 5000, true)).rejects.toMatchObject({ code: 'ECONNRESET' });
    await expect(postWebhook(`${raw.url}/reset`, '{}', {}, 5000, true)).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|EPIPE/) });
    await expect(postWebhook(`${raw.url.replace(/:\d+$/, ':1')}/x`, '{}', {}, 5000, true)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await postWebhook(`${raw.url}/ok`, '{}', {}, 5000, true)).toEqual({ status: 204 });
  });

  it('goes one request at a time to a receiver that cannot take them pipelined: a few fail, to be tried again, and the rest go', async () => {
    // Answers each request a few ms later; a request that comes while one is unanswered (pipelined)
    // breaks the connection, and every request on it is lost.
    const raw = await rawServer((_head, socket) => {
      const s = socket as Socket & { busy?: boolean };
      if (s.busy) {
        socket.destroy();
        return;
      }
      s.busy = true;
      setTimeout(() => {
        s.busy = false;
        if (!socket.destroyed) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
      }, 5);
    });
    raws.push(raw.server);
    // Earns pipelining (16 answers on kept connections, one at a time).
    for (let n = 0; n < 16; n++) expect(await postWebhook(`${raw.url}/x`, '{}', {}, 5000, true)).toEqual({ status: 200 });
    const results = await Promise.allSettled(Array.from({ length: 32 }, () => postWebhook(`${raw.url}/x`, '{}', {}, 5000, true)));
    const failed = results.filter((r) => r.status === 'rejected').length;
    expect(failed).toBeGreaterThan(0);
    // Back to one at a time: every request is answered now.
    const later = await Promise.allSettled(Array.from({ length: 32 }, () => postWebhook(`${raw.url}/x`, '{}', {}, 5000, true)));
    expect(later.filter((r) => r.status === 'rejected')).toHaveLength(0);
  });

  it('sends to uWebSockets.js, pipelined', async () => {
    let received = 0;
    const port = await new Promise<number>((resolve, reject) => {
      App().post('/*', (res) => {
        res.onAborted(() => undefined);
        res.onData((_c, last) => {
          if (!last) return;
          received++;
          res.cork(() => res.writeStatus('204 No Content').end());
        });
      }).listen('127.0.0.1', 0, (s) => {
        if (s === false) reject(new Error('no listen'));
        else {
          uws = s;
          resolve(us_socket_local_port(s));
        }
      });
    });
    for (let n = 0; n < 16; n++) await postWebhook(`http://127.0.0.1:${port}/h`, '{"n":1}', {}, 5000, true);
    const all = await Promise.all(Array.from({ length: 500 }, () => postWebhook(`http://127.0.0.1:${port}/h`, '{"n":2}', {}, 5000, true)));
    expect(all).toEqual(Array(500).fill({ status: 204 }));
    expect(received).toBe(516);
  });

  it('sends over TLS, checking the certificate, with the host\'s name as SNI', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'laurel-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
    const names: (string | false | null)[] = [];
    const secure = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      names.push((req.socket as TLSSocket).servername);
      req.resume();
      req.on('end', () => { res.statusCode = 202; res.end('ok'); });
    });
    // The server holds the key and certificate it read: their files go.
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const port = (secure.address() as AddressInfo).port;
    try {
      // Not trusted by the system: refused.
      await expect(postWebhook(`https://localhost:${port}/tls`, '{}', {}, 5000, true)).rejects.toMatchObject({ code: expect.stringMatching(/CERT|SELF_SIGNED/) });
      // Trusted (the check off for this test): the exchange over TLS, one at a time, then pipelined.
      const was = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
      try {
        for (let n = 0; n < 16; n++) expect(await postWebhook(`https://localhost:${port}/tls`, `{"n":${n}}`, {}, 5000, true)).toEqual({ status: 202 });
        const all = await Promise.all(Array.from({ length: 64 }, (_, n) => postWebhook(`https://localhost:${port}/tls`, `{"m":${n}}`, {}, 5000, true)));
        expect(all).toEqual(Array(64).fill({ status: 202 }));
      } finally {
        if (was === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
        else process.env.NODE_TLS_REJECT_UNAUTHORIZED = was;
      }
      expect(names.length).toBe(80);
      expect(new Set(names)).toEqual(new Set(['localhost']));
    } finally {
      secure.closeAllConnections();
      await new Promise((resolve) => secure.close(resolve));
    }
  });
});
