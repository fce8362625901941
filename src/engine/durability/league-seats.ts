/**
 * A league's seats made again by a restore (src/engine/durability/restore.ts), from the `league`
 * entries the joins logged (src/model/log.ts; lua/leagueKeep-2.lua, lua/leagueShift-2.lua). The
 * events' entries do not say in which order their placements joined: an event's entry is written
 * before its placement, concurrent events place in an order of their own, and a finalisation pass
 * moves users while others play the next run. So the replay does not work the cohorts out again:
 * 1. before any entry is replayed, every tier a `league` entry names is seated as the joins left
 *    it: each user's cohort (`u:<user id>`), and the open cohort and its users as the latest join
 *    left them (the highest of the entries', or the snapshot's when higher). A replayed join then
 *    answers the cohort the user had, whenever it comes;
 * 2. the place kept with a user (`lg:<board>`) is written as the join wrote it just before the
 *    entry whose placement joined is replayed, so that placement finds it kept and only ranks the
 *    user, in the tier they joined (an outcome the replay applies later finds it moved already,
 *    as it did); a place whose entry the replay skips (the snapshot holds that entry's user, not
 *    the place) is written before the replay. A user the replay creates finds no place to write:
 *    their first placement joins the lowest tier, seated already.
 * A finalisation's move to another cohort (league-relocate.ts) is made again by the replay of the
 * run's `finalised` entry; its join answers the seat seated here.
 */
import { REDACTED_KIND } from '../../domain/erasure.js';
import { compareStreamIds, type LeagueSeat } from '../../model/log.js';
import { cohortUserField, dottedOf, leagueField } from '../../redis/leagues.js';
import type { Services } from '../deps.js';

type Deps = Pick<Services, 'redis' | 'keys' | 'store'>;

/** An archived entry as the restore reads it. */
interface Archived {
  id: string;
  kind: string;
  body: string;
}

/** A place to write with a user: their hash, the league's field, the value. */
interface PlaceWrite {
  user: string;
  field: string;
  value: string;
}

/** A tier as the entries seat it: its users' cohorts, and the open cohort and its users last. */
interface TierSeats {
  users: Map<string, string>;
  open: number;
  filled: number;
}

/** Tiers seated at once. */
const TIERS_AT_ONCE = 64;

/** Whether (o1, n1) comes after (o2, n2): a tier's open cohort and its users only grow. */
function later(o1: number, n1: number, o2: number, n2: number): boolean {
  return o1 > o2 || (o1 === o2 && n1 > n2);
}

export class LeagueSeats {
  /** The places to write just before an entry is replayed, by that entry's id. */
  private readonly before = new Map<string, PlaceWrite[]>();
  /** The places to write before the replay. */
  private readonly first: PlaceWrite[] = [];
  private readonly tiers = new Map<string, TierSeats>();

  /**
   * From the archived `entries` the restore replays (in log order) and each user's position in the
   * snapshot (`<tenant>\0<user id>` -> the last entry their restored keys hold).
   */
  constructor(private readonly deps: Deps, entries: Archived[], positions: Map<string, string>) {
    const ids = new Set<string>();
    for (const entry of entries) ids.add(entry.id);
    const boards = deps.store.current.leaderboards;
    for (const entry of entries) {
      const erased = entry.kind === REDACTED_KIND;
      if (entry.kind !== 'league' && !erased) continue;
      const seat = JSON.parse(entry.body) as LeagueSeat & { k?: string };
      if (erased && seat.k !== 'league') continue;
      const c = dottedOf(seat.c);
      const n = dottedOf(seat.n);
      if (c === null || n === null || !boards.get(seat.b)?.league) continue;
      // An erased user's seat stays taken: it counts in the tier, and names nobody.
      this.seat(deps.keys.leagueTier(seat.t, seat.b, seat.r, c[0]), erased ? null : seat.u, c[1], n);
      if (erased) continue;
      if (seat.lg === undefined || seat.e === undefined) continue;
      const position = positions.get(`${seat.t}\u0000${seat.u}`);
      // The snapshot holds the user as this join left them, or later.
      if (position !== undefined && compareStreamIds(entry.id, position) <= 0) continue;
      const write = { user: deps.keys.forUser(seat.t, seat.u).user, field: leagueField(seat.b), value: seat.lg };
      const replayed = ids.has(seat.e) && (position === undefined || compareStreamIds(seat.e, position) > 0);
      if (!replayed) {
        this.first.push(write);
        continue;
      }
      const writes = this.before.get(seat.e);
      if (writes === undefined) this.before.set(seat.e, [write]);
      else writes.push(write);
    }
  }

  private seat(tier: string, userId: string | null, cohort: number, [open, filled]: [number, number]): void {
    let t = this.tiers.get(tier);
    if (t === undefined) this.tiers.set(tier, (t = { users: new Map(), open, filled }));
    else if (later(open, filled, t.open, t.filled)) [t.open, t.filled] = [open, filled];
    if (userId !== null) t.users.set(userId, String(cohort));
  }

  /** Step 1, and the places of entries the replay skips: made before the replay. */
  async seatTiers(): Promise<void> {
    const { redis } = this.deps;
    const tiers = [...this.tiers];
    for (let i = 0; i < tiers.length; i += TIERS_AT_ONCE) {
      await Promise.all(tiers.slice(i, i + TIERS_AT_ONCE).map(async ([key, t]) => {
        const [o, n] = await redis.hmget(key, 'o', 'n');
        const fields: string[] = [...t.users].flatMap(([userId, cohort]) => [cohortUserField(userId), cohort]);
        if (o === null || n === null || later(t.open, t.filled, Number(o), Number(n))) fields.push('o', String(t.open), 'n', String(t.filled));
        if (fields.length > 0) await redis.hset(key, ...fields);
      }));
    }
    for (const write of this.first) await this.write(write);
  }

  /** Step 2: the places the placement of the entry `id` joined, written before it is replayed. */
  async beforeReplay(id: string): Promise<void> {
    const writes = this.before.get(id);
    if (writes !== undefined) for (const write of writes) await this.write(write);
  }

  /** A place written with a user who exists (one the replay creates has none yet). */
  private async write({ user, field, value }: PlaceWrite): Promise<void> {
    if (await this.deps.redis.exists(user) === 1) await this.deps.redis.hset(user, field, value);
  }
}
