/**
 * What the clock's events need for the live topics (src/engine/live/clock.ts), as the live
 * publisher hands it over (src/engine/live/publisher.ts, ClockNotes): the extensions and freeze
 * grants of the users whose topic is wanted, as the drain notes them for the endpoints
 * (noteLogged); and, for a user whose topic becomes wanted (noteFollowed), from the user's hash:
 * when the streak the user holds is lost if nothing happens (the losses' due index,
 * src/engine/webhooks/losses.ts: ZADD GT, an expiry only moves later), and, unless an endpoint
 * subscribes to the freezes' events (the log drain then keeps it current), the user's freezes as
 * seen now and a check at the end of the local day (src/engine/webhooks/freezes.ts). What was seen
 * at the user's last extension is kept: the publisher noted it from the log (a grant since is
 * news); what was seen at an earlier one is old (nobody noted the user since), and replaced. What
 * changes later is noted from the log as it is published.
 */
import { formatSeen, freezeStanding, parseSeen } from '../../domain/webhooks/freeze-changes.js';
import { listIn } from '../../lib/lists.js';
import { sentTogether } from '../../redis/coalesce.js';
import type { Context } from '../context.js';
import type { ParsedEntry } from '../../domain/webhooks/events.js';
import { indexLosses, storedExpiry } from './losses.js';
import { freezesWanted, indexFreezes } from './freezes.js';
import { logSubscribers } from './plan.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** Notes the entries' extensions (expiries, freezes) and grants. */
export async function noteLogged(deps: Deps, entries: ParsedEntry[]): Promise<void> {
  if (deps.store.current.streak === null) return;
  await Promise.all([indexLosses(deps, entries), indexFreezes(deps, entries)]);
}

/** Notes each user's streak as the user's hash holds it. */
export async function noteFollowed(deps: Deps, users: { tenant: string; userId: string }[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (rule === null || users.length === 0) return;
  const freezesNoted = freezesWanted(logSubscribers(deps.store.current).types);
  const { redis, keys } = deps;
  const [hashes, held] = await Promise.all([
    Promise.all(sentTogether(redis, () => users.map(({ tenant, userId }) => redis.hgetall(keys.forUser(tenant, userId).user)))),
    freezesNoted || !rule.freezes ? null : Promise.all(sentTogether(redis, () => users.map(({ tenant, userId }) => redis.hget(keys.streakFreezes(tenant).seen, userId)))),
  ]);
  const now = deps.clock.now();
  const losses = new Map<string, (string | number)[]>();
  const seen = new Map<string, string[]>();
  const checks = new Map<string, (string | number)[]>();
  users.forEach(({ tenant, userId }, i) => {
    const h = hashes[i];
    if (h.id === undefined) return;
    const expiry = storedExpiry(h, rule, now);
    if (expiry !== null) listIn(losses, tenant).push(expiry, userId);
    const standing = held === null ? null : freezeStanding(rule, h, now);
    if (standing !== null) {
      if (parseSeen(held![i])?.last !== standing.seen.last) listIn(seen, tenant).push(userId, formatSeen(standing.seen));
      listIn(checks, tenant).push(standing.next, userId);
    }
  });
  await Promise.all([
    ...[...losses].map(([tenant, pairs]) => redis.zadd(keys.streakLosses(tenant), 'GT', ...pairs)),
    ...[...seen].map(([tenant, pairs]) => redis.hset(keys.streakFreezes(tenant).seen, ...pairs)),
    ...[...checks].map(([tenant, pairs]) => redis.zadd(keys.streakFreezes(tenant).due, 'LT', ...pairs)),
  ]);
}
