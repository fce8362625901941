/**
 * Data an older laurel kept in another shape, moved once at start-up (src/app/prepare.ts), before
 * any process serves:
 * - the tenants' points totals, a sorted set per tenant and system
 *   (`<prefix>:{pts:<tenant>}:<systemId>`, written by phase 2, with a `:seq` hash beside it), into
 *   the partitions' totals hashes the awarding scripts write (src/redis/keys.ts
 *   partitionPointsTotals);
 * - the streak rankings' members and sequences hashes (`{st:<tenant>}:am`, `:lm`, `:seq`), and the
 *   members written before members carried an order (the bare user id), into the standing hash
 *   (lua/streakRank-4.lua).
 * What the current scripts wrote already is newer and stays (HSETNX). The old keys are deleted.
 */
import type { Logger } from 'pino';
import { scanKeys } from '../../redis/client.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

/** '<prefix>:{pts:<tenant>}:<systemId>' and '...:seq'. */
const OLD_TOTALS = /^.*:\{pts:([^}]*)\}:([^:]+)(:seq)?$/;
/** '<prefix>:{st:<tenant>}:<name>'. */
const STREAK_KEY = /^.*:\{st:([^}]*)\}:(\w+)$/;

/** Moves the old points totals sets, if any; answers how many users' totals were moved. */
export async function movePointsTotals(deps: Deps): Promise<number> {
  const { redis, keys } = deps;
  let moved = 0;
  for await (const batch of scanKeys(redis, `${keys.prefix}:{pts:*`, 1000)) {
    for (const name of batch) {
      const m = OLD_TOTALS.exec(name);
      if (m !== null && m[3] === undefined) {
        const [, tenant, systemId] = m;
        const flat = await redis.zrange(name, 0, -1, 'WITHSCORES');
        for (let i = 0; i < flat.length; i += 2) {
          const t = keys.partitionPointsTotal(tenant, flat[i], systemId);
          await redis.hsetnx(t.key, t.field, flat[i + 1]);
          moved++;
        }
      }
      await redis.del(name);
    }
  }
  return moved;
}

/** A member's order ('' for a bare user id) and the user it stands for. */
function memberOf(member: string): [order: string, userId: string] {
  const bar = member.indexOf('|');
  return bar < 0 ? ['', member] : [member.slice(0, bar), member.slice(bar + 1)];
}

/** Moves one tenant's streak members and sequences into its standing hash; answers the users moved. */
async function moveTenantStanding(deps: Deps, tenant: string): Promise<number> {
  const { redis, keys } = deps;
  const k = keys.streakRankings(tenant);
  const base = k.standing.slice(0, -1);
  const sequences = await redis.hgetall(`${base}seq`);
  // user -> [seq, active order, active length, longest order, longest length]
  const users = new Map<string, string[]>();
  const entry = (userId: string) => {
    let e = users.get(userId);
    if (e === undefined) users.set(userId, (e = [sequences[userId] ?? '', '', '', '', '']));
    return e;
  };
  for (const [ranking, at] of [[k.active, 1], [k.longest, 3]] as const) {
    const flat = await redis.zrange(ranking, 0, -1, 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) {
      const [order, userId] = memberOf(flat[i]);
      const e = entry(userId);
      e[at] = order;
      e[at + 1] = String(Math.floor(Number(flat[i + 1])));
    }
  }
  for (const userId of Object.keys(sequences)) entry(userId);
  for (const [userId, e] of users) await redis.hsetnx(k.standing, userId, e.join('|'));
  await redis.del(`${base}seq`, `${base}am`, `${base}lm`);
  return users.size;
}

/** Moves every tenant's streak members and sequences that an older laurel kept apart. */
export async function moveStreakStanding(deps: Deps): Promise<number> {
  const tenants = new Set<string>();
  for await (const batch of scanKeys(deps.redis, `${deps.keys.prefix}:{st:*}:seq`, 1000)) {
    for (const name of batch) {
      const m = STREAK_KEY.exec(name);
      if (m !== null) tenants.add(m[1]);
    }
  }
  let moved = 0;
  for (const tenant of tenants) moved += await moveTenantStanding(deps, tenant);
  return moved;
}

/** Every move above; logs what moved. */
export async function upgradeData(deps: Deps, log: Logger): Promise<void> {
  const totals = await movePointsTotals(deps);
  const streaks = await moveStreakStanding(deps);
  if (totals > 0 || streaks > 0) log.info({ totals, streaks }, 'data of an older laurel moved to its current shape (once)');
}
