/**
 * Time triggers: `points` every `timeInterval` hours or days since the user was created (or since
 * the trigger was, when it came later), as energy that regenerates. Accrual is lazy and exact:
 * whenever a user acts (the event script hands back to the api when an award is due), a user's
 * points are read, or the `points-time` worker finds a user whose next award is due, this works
 * out every award due since the last one, each dated when it was due and counted on that day of
 * the user's clock (src/domain/clock.ts), and the accruePoints script applies them (caps and the floor as for any award; a trigger's
 * maxAwards per period of the user's clock, each due time in its own period) and records when the
 * next one is due.
 *
 * The user hash keeps `tt:<triggerId>` (the next award's due time, ms); the partition's due set
 * (`<slot>ptdue`, member `<tenant>|<user id>`) keeps each user's earliest, for the worker
 * (src/engine/points/time-due.ts).
 */
import { timeDueField } from '../../model/fields.js';
import { pointsEntryHead } from '../../model/log.js';
import type { Context } from '../context.js';
import { isOff } from '../../domain/points/rules.js';
import { placedAwards, rankAwards } from '../leaderboards/rank-user.js';
import { boostsArg } from '../../config/plans/points.js';
import { periodIndex, periodLetter } from '../../domain/limits.js';
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import * as accruePoints from '../../redis/scripts/accruePoints.js';
import { dueMember } from '../../redis/due-sets.js';

/** Awards written per script call; a longer backlog takes several calls. */
const MAX_DUES_PER_CALL = 500;

/**
 * Accrues the user's due time awards. Returns the awards made ([[system, trigger, awarded, total,
 * n], ...]), or null when the user does not exist or no time trigger is active.
 */
export async function accrueTime(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>, tenant: string, userId: string, seq?: string,
): Promise<unknown[][] | null> {
  const { redis, keys, store, clock } = deps;
  const triggers = store.current.timeTriggers;
  if (triggers.length === 0) return null;
  const u = keys.forUser(tenant, userId);
  const filterFields = [...new Set(triggers.flatMap((t) => t.ua.filter((_, i) => i % 2 === 0)))];
  const made: unknown[][] = [];
  // A backlog longer than MAX_DUES_PER_CALL takes several calls, however long; only another
  // process's accruals meanwhile ('moved') count against the attempts.
  let moved = 0;
  while (moved < 20) {
    const now = clock.now();
    const h = await redis.hmget(u.user, 'id', 'created', 'tz', ...triggers.map((t) => timeDueField(t.trigger.id)), ...filterFields, CLOCK_FIELD);
    if (h[0] === null) return null;
    const createdMs = Date.parse(h[1] ?? '') || now;
    const tz = h[2] ?? '';
    // Each due time on the user's clock: never a period before the one their events reached.
    const userClock = parseClock(h[3 + triggers.length + filterFields.length]);
    const timeOf = (ms: number) => userTime(tz, userClock, ms);
    const attributes = new Map(filterFields.map((f, i) => [f, h[3 + triggers.length + i]]));
    const specs: accruePoints.Trigger[] = [];
    const dues: [number, number, string][] = [];
    let earliest = Infinity;
    let more = false;
    triggers.forEach((t, i) => {
      const stored = h[3 + i];
      const most = t.trigger.maxAwards ?? null;
      let next = stored !== null ? Number(stored) : Math.max(createdMs, t.createdMs) + t.intervalMs;
      let matches = true;
      for (let k = 0; k < t.ua.length; k += 2) if (attributes.get(t.ua[k]) !== t.ua[k + 1]) matches = false;
      // A user who does not match the trigger's filters lets the time pass without awards; so does a
      // trigger while it (or its system) was off.
      for (let n = 0; next <= now && n < MAX_DUES_PER_CALL; n++) {
        if (matches && (t.off.length === 0 || !isOff(t.off, next))) dues.push([next, specs.length, most === null ? '' : periodIndex(most.period, timeOf(next).hour)]);
        next += t.intervalMs;
      }
      if (next <= now) more = true;
      earliest = Math.min(earliest, next);
      if (stored === null || String(next) !== stored) {
        specs.push({
          id: t.trigger.id, systemId: t.trigger.systemId, points: t.trigger.points, cap: t.cap ?? null, read: stored, next,
          most: most === null ? null : { count: most.count, letter: periodLetter(most.period) },
        });
      }
    });
    if (specs.length === 0) return made;
    // Oldest first across triggers, so that a cap binds in time order.
    dues.sort((a, b) => a[0] - b[0]);
    const due = dues.map(([ms, k, period]): [number, string, number, string] => [ms, `d:${timeOf(ms).date}`, k, period]);
    const boosts = dues.length === 0 ? '' : boostsArg(store.current, tenant, userId, timeOf(dues[0][0]).date);
    const entry = pointsEntryHead(tenant, userId, now);
    const r = await accruePoints.run(redis, u, { member: dueMember(tenant, userId), earliest, dues: due, boosts, entry, triggers: specs });
    if (r === 'not_found') return null;
    if (r === 'moved') {
      // Another process accrued meanwhile: read again.
      moved++;
      continue;
    }
    if (r.awards !== '') {
      made.push(...(r.awards as unknown[][]));
      await rankAwards(deps, tenant, userId, placedAwards(r.awards), now, seq ?? r.seq);
    }
    if (!more) return made;
  }
  throw new Error(`time awards of user ${userId} kept moving; try again`);
}
