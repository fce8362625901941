/**
 * Variant `trivial-script`: the floor of laurel's design. Per request it parses the same JSON
 * body as the event scenario and runs ONE trivial Lua script (INCR of a per-user key) through
 * ioredis `defineCommand`, the way laurel runs its scripts: one client, EVALSHA, no
 * auto-pipelining (docs/architecture.md, "The event hot path" measured that slower on this machine). laurel's phase 1
 * does far more inside its script; the gap between the two is what laurel's own work costs.
 *
 * Variant `ten-command-script` (BENCH_SCRIPT=ten): the same server, and a script of the ten
 * commands an XP event's phase 1 runs for a new user (laurel-points): read the user, add to the
 * total and the day, create the user (a hash and the partition's set), write the streak, its
 * history, the award and the points total, append to the log; eight for a returning user. What
 * Redis must do for such an event, without laurel's logic: docs/architecture.md, "The event hot path" measured a
 * ten-command script at about 18,000 requests/s on the 2-core machine.
 *
 * Variants `zset-floor` (BENCH_SCRIPT=zset) and `zset-floor-1000` (BENCH_SCRIPT=zset-1000): the same
 * server, and a script of the data structure's work alone of a board's placement: ZINCRBY of the
 * user on one sorted set, then ZREVRANK, on a set of every user (as an uncapped board grows) or of
 * 1,000 members (the user's number modulo 1,000, as a capped board holds). Their difference is the
 * floor under what ranking everyone costs over a board of 1,000.
 *
 *   PORT=<port> BENCH_PREFIX=<unique> [BENCH_SCRIPT=ten|zset|zset-1000] REDIS_URL=redis://127.0.0.1:6379 node dist/bench/servers/trivial-script.js
 *
 * Keys: `<BENCH_PREFIX>:{<userId>}:n`; for the ten commands, laurel's layout: a user's keys
 * `<BENCH_PREFIX>:{p<N>}:u:<userId>` (and `:n:`, `:h:`, `:p:`) in one of 256 partitions, which
 * hold the set `:s` and the log `:l`. The hash tags keep the keys Cluster-shaped like laurel's; the
 * runner deletes `<BENCH_PREFIX>:*` after the variant.
 */
import { Redis, type Result } from 'ioredis';
import type { HttpResponse } from 'uWebSockets.js';
import { App, readBody, send, serve, withFallback, type Guard } from './shared.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    benchIncr(key: string): Result<number, Context>;
    benchZset(board: string, member: string): Result<number, Context>;
    benchTen(user: string, day: string, users: string, history: string, points: string, log: string,
      userId: string, now: string, dayField: string, entry: string): Result<number, Context>;
  }
}

/*
  KEYS[1] the counter of one user
  returns the counter after the increment
*/
const INCR_LUA = "return redis.call('INCR', KEYS[1])";

/*
  KEYS[1] user hash, KEYS[2] the user's day buckets, KEYS[3] user set, KEYS[4] streak history,
  KEYS[5] points hash, KEYS[6] log stream; ARGV[1] user id, ARGV[2] now (ISO), ARGV[3] day field,
  ARGV[4] the log entry. Returns the total after the event.
*/
const TEN_LUA = `
local stored = redis.call('HMGET', KEYS[1], 'tz', 'id', 's', 'pt')
local total = redis.call('HINCRBY', KEYS[1], 'm', 1)
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
if not stored[2] then
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'created', ARGV[2], 'updated', ARGV[2], 'sub', '1')
  redis.call('SADD', KEYS[3], ARGV[1])
end
redis.call('HSET', KEYS[1], 's', 'd|' .. total .. '|20779|20779||||20779||', 's:at', ARGV[2])
redis.call('HSET', KEYS[4], ARGV[3], total)
redis.call('HSET', KEYS[5], 'a:' .. total, ARGV[2], ARGV[3], total * 10)
redis.call('HSET', KEYS[1], 'pt', total * 10, 'pn', total)
redis.call('XADD', KEYS[6], '*', 'event', ARGV[4])
return total`;

/*
  KEYS[1] the board's sorted set; ARGV[1] the member. Returns its rank from the top (0-based).
*/
const ZSET_LUA = "redis.call('ZINCRBY', KEYS[1], 1, ARGV[1]) return redis.call('ZREVRANK', KEYS[1], ARGV[1])";

const ten = process.env.BENCH_SCRIPT === 'ten';
/** The zset scripts' members: every user, or 1,000 of them (null: not a zset script). */
const zsetMembers = process.env.BENCH_SCRIPT === 'zset' ? Infinity : process.env.BENCH_SCRIPT === 'zset-1000' ? 1000 : null;

const prefix = process.env.BENCH_PREFIX;
if (!prefix || !/^[A-Za-z0-9_.-]+$/.test(prefix)) throw new Error('BENCH_PREFIX must be set (letters, digits, "_", ".", "-")');

const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: 2,
  enableAutoPipelining: false,
  connectionName: 'laurel-bench-trivial',
});
redis.on('error', (err) => process.stderr.write(`redis: ${err.message}\n`));
redis.defineCommand('benchIncr', { lua: INCR_LUA, numberOfKeys: 1 });
redis.defineCommand('benchTen', { lua: TEN_LUA, numberOfKeys: 6 });
redis.defineCommand('benchZset', { lua: ZSET_LUA, numberOfKeys: 1 });

const keyHead = `${prefix}:{`;

/** One of 256 partitions, as laurel spreads users (FNV-1a of the id). */
function partitionOf(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) h = Math.imul(h ^ userId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 256;
}

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
  if (ten) {
    const base = `${prefix}:{p${partitionOf(userId)}}:`;
    const now = new Date().toISOString();
    const entry = `{"u":${JSON.stringify(userId)},"m":"lessons","v":1,"ts":${Date.now()},"d":"${now.slice(0, 10)}"}`;
    redis.benchTen(base + 'u:' + userId, base + 'n:' + userId, base + 's', base + 'h:' + userId, base + 'p:' + userId, base + 'l',
      userId, now, 'd:' + now.slice(0, 10), entry).then(
      (n) => send(res, guard, '201 Created', `{"total":${n}}`),
      (err: Error) => send(res, guard, '500 Internal Server Error', JSON.stringify({ error: err.message })),
    );
    return;
  }
  if (zsetMembers !== null) {
    // user-<n> as the bench's bodies name them: a capped board's 1,000 members by n modulo 1,000.
    const n = Number(/(\d+)$/.exec(userId)?.[1] ?? 0);
    const member = zsetMembers === Infinity ? userId : `user-${n % zsetMembers}`;
    redis.benchZset(keyHead + 'board}:r', member).then(
      (rank) => send(res, guard, '201 Created', `{"rank":${rank + 1}}`),
      (err: Error) => send(res, guard, '500 Internal Server Error', JSON.stringify({ error: err.message })),
    );
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
    redis.script('LOAD', ten ? TEN_LUA : zsetMembers !== null ? ZSET_LUA : INCR_LUA).then(
      () => send(res, guard, '200 OK', '{"status":"ready"}'),
      (err: Error) => send(res, guard, '503 Service Unavailable', JSON.stringify({ error: err.message })),
    );
  });

serve(withFallback(app), async () => {
  await redis.quit().catch(() => redis.disconnect());
});
