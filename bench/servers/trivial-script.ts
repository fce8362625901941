/**
 * Variant `trivial-script`: the floor of laurel's design. Per request it parses the same JSON
 * body as the event scenario and runs ONE trivial Lua script (INCR of a per-user key) through
 * ioredis `defineCommand`, the way laurel runs its scripts: one client, EVALSHA, no
 * auto-pipelining (ARCHITECTURE.md §3 measured that slower on this machine). laurel's phase 1
 * does far more inside its script; the gap between the two is what laurel's own work costs.
 *
 *   PORT=<port> BENCH_PREFIX=<unique> REDIS_URL=redis://127.0.0.1:6379 node dist/bench/servers/trivial-script.js
 *
 * Keys: `<BENCH_PREFIX>:{<userId>}:n`. The hash tag keeps the key Cluster-shaped like laurel's;
 * the runner deletes `<BENCH_PREFIX>:*` after the variant.
 */
import { Redis, type Result } from 'ioredis';
import type { HttpResponse } from 'uWebSockets.js';
import { App, readBody, send, serve, withFallback, type Guard } from './shared.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    benchIncr(key: string): Result<number, Context>;
  }
}

/*
  KEYS[1] the counter of one user
  returns the counter after the increment
*/
const INCR_LUA = "return redis.call('INCR', KEYS[1])";

const prefix = process.env.BENCH_PREFIX;
if (!prefix || !/^[A-Za-z0-9_.-]+$/.test(prefix)) throw new Error('BENCH_PREFIX must be set (letters, digits, "_", ".", "-")');

const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: 2,
  enableAutoPipelining: false,
  connectionName: 'laurel-bench-trivial',
});
redis.on('error', (err) => process.stderr.write(`redis: ${err.message}\n`));
redis.defineCommand('benchIncr', { lua: INCR_LUA, numberOfKeys: 1 });

const keyHead = `${prefix}:{`;

/** The user id of an event body, or null when the body is not one. */
function userIdOf(body: string): string | null {
  const parsed = JSON.parse(body) as { user?: { id?: unknown } } | null;
  const id = parsed?.user?.id;
  return typeof id === 'string' && id !== '' ? id : null;
}

function handle(body: string, res: HttpResponse, guard: Guard): void {
  let userId: string | null;
  try {
    userId = userIdOf(body);
  } catch {
    userId = null;
  }
  if (userId === null) {
    send(res, guard, '400 Bad Request', '{"error":"body must be {\\"user\\":{\\"id\\":\\"...\\"}}"}');
    return;
  }
  redis.benchIncr(keyHead + userId + '}:n').then(
    (n) => send(res, guard, '201 Created', `{"total":${n}}`),
    (err: Error) => send(res, guard, '500 Internal Server Error', JSON.stringify({ error: err.message })),
  );
}

const app = App()
  .post('/*', (res) => {
    const guard: Guard = { aborted: false, done: false };
    readBody(res, guard, (body) => handle(body, res, guard));
  })
  .get('/ready', (res) => {
    const guard: Guard = { aborted: false, done: false };
    res.onAborted(() => { guard.aborted = true; });
    // Ready once Redis answers and the script is loaded, so the warm-up measures no EVAL.
    redis.script('LOAD', INCR_LUA).then(
      () => send(res, guard, '200 OK', '{"status":"ready"}'),
      (err: Error) => send(res, guard, '503 Service Unavailable', JSON.stringify({ error: err.message })),
    );
  });

serve(withFallback(app), async () => {
  await redis.quit().catch(() => redis.disconnect());
});
