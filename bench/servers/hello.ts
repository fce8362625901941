/**
 * Variant `uws-hello`: the ceiling. uWebSockets.js reads the POST body and answers a tiny JSON,
 * with no parsing and no Redis. Everything laurel does costs throughput relative to this.
 *
 *   PORT=<port> node dist/bench/servers/hello.js
 */
import { App, readBody, send, serve, withFallback, type Guard } from './shared.js';

const OK = '{"ok":true}';

const app = App()
  .post('/*', (res) => {
    const guard: Guard = { aborted: false, done: false };
    // The body is read (not ignored) so this variant pays for the same bytes as the others.
    readBody(res, guard, () => send(res, guard, '200 OK', OK));
  })
  .get('/ready', (res) => {
    res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end('{"status":"ready"}');
  });

serve(withFallback(app));
