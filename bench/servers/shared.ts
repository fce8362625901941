/**
 * What the bench's own servers share: reading a POST body by the uWS rules (src/http/server.ts), listening
 * on the port the runner picked, and stopping on SIGTERM/SIGINT. Not a server itself.
 *
 * The servers are kept as small as laurel's HTTP layer allows, so the variants differ only in
 * the work they do per request, not in how they read bodies or write answers.
 */
import {
  App, us_listen_socket_close, us_socket_local_port, type HttpResponse, type TemplatedApp, type us_listen_socket,
} from 'uWebSockets.js';

/** The port and host the runner hands over; a server never picks its own (docs/architecture.md, "The event hot path"). */
export function listenAddress(): { host: string; port: number } {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`PORT must be set to a free port, got "${process.env.PORT ?? ''}"`);
  }
  return { host: process.env.HOST || '127.0.0.1', port };
}

/** Response state: uWS forbids touching `res` after an abort or after `end`. */
export interface Guard {
  aborted: boolean;
  done: boolean;
}

/**
 * Reads the whole body and hands it over as a string. Registers onAborted first; copies the chunk
 * before onData returns (uWS reuses the buffer) and joins once at the last chunk.
 */
export function readBody(res: HttpResponse, guard: Guard, onBody: (body: string) => void): void {
  res.onAborted(() => { guard.aborted = true; });
  let chunks: Buffer[] | null = null;
  let size = 0;
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (!isLast) {
      (chunks ??= []).push(Buffer.from(chunk.slice(0)));
      return;
    }
    if (chunks === null) {
      onBody(Buffer.from(chunk).toString('utf8'));
    } else {
      chunks.push(Buffer.from(chunk));
      onBody(Buffer.concat(chunks, size).toString('utf8'));
    }
    chunks = null;
  });
}

/** The one writer: skips aborted or finished responses and corks (needed after an await). */
export function send(res: HttpResponse, guard: Guard, status: string, body: string): void {
  if (guard.aborted || guard.done) return;
  guard.done = true;
  res.cork(() => {
    res.writeStatus(status).writeHeader('content-type', 'application/json').end(body);
  });
}

/** A catch-all 404, so a wrong path in a wrk script shows up as non-2xx and not as a hang. */
export function withFallback(app: TemplatedApp): TemplatedApp {
  return app.any('/*', (res) => {
    res.writeStatus('404 Not Found').writeHeader('content-type', 'application/json').end('{"error":"not found"}');
  });
}

/**
 * Listens on the given address and stops on SIGTERM/SIGINT: closes the listen socket, runs
 * `close` (Redis), then exits. A failed listen exits non-zero, so the runner sees it at once.
 */
export function serve(app: TemplatedApp, close: () => Promise<void> = async () => {}): void {
  const { host, port } = listenAddress();
  let socket: us_listen_socket | null = null;
  app.listen(host, port, (s) => {
    if (!s) {
      process.stderr.write(`cannot listen on ${host}:${port}\n`);
      process.exit(1);
    }
    socket = s;
    process.stdout.write(`listening on ${host}:${us_socket_local_port(s)}\n`);
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (socket) us_listen_socket_close(socket);
    socket = null;
    close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

export { App };
