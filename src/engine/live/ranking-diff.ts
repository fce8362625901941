/**
 * What the live publisher's passes share (src/engine/live/boards.ts for a board's runs and groups,
 * src/engine/live/cohorts.ts for a league's cohorts): a ranking compared with what was last
 * published of it (kept in memory, and in the ranking's `:lv` hash at most once every SAVE_MS, so
 * that a publisher that takes over compares with what was published up to a second before), and
 * the place before of a user the publisher never saw, as their placement recorded it.
 */
import { parseRankChange } from '../../domain/leaderboards/rank-history.js';
import type { RankedView } from '../../model/views.js';
import { sentTogether } from '../../redis/coalesce.js';
import type { LeaderboardKeys } from '../../redis/keys.js';
import { seenPlace, seenText } from '../../redis/rankings.js';
import type { Context } from '../context.js';

/** How often a ranking's `:lv` hash is written, at most (ms): a publisher that takes over reads it. */
const SAVE_MS = 1000;
/**
 * Moves a pass sends on a board's topic at most (the best ranked first): a board that thousands of
 * events move a second would otherwise send each of its subscribers thousands of messages a
 * second (with 1,000 subscribers, the bench's machine spent more on those than on the events).
 * With the top 10 (`leaderboard.changed`, once a pass at most), a board's topic carries at most 40
 * messages a second; a user's own topic gets every move of theirs.
 */
export const MOVES_PER_PASS = 3;
/**
 * How long a change and its entry wait for each other (ms). A placement can land before the
 * publisher reads its event's entry (its read of the logs lags behind a busy moment): the move is
 * sent once the entry names the user. And it can land well after (the api process that places it
 * is held up): the board is read until the user is seen moving (src/engine/live/boards.ts).
 */
export const PENDING_MS = 5000;
/** The places of a ranking's top shown by `leaderboard.changed`. */
export const TOP = 10;

type Deps = Pick<Context, 'redis'>;

/** The users the entries read name (a set, or a map of them). */
export interface Named {
  has(userId: string): boolean;
}

/** A user whose place differs from the one last published (a newcomer: previous null). */
export interface Change extends RankedView {
  previousRank: number | null;
  previousValue: number | null;
}

/** A ranking's read compared with what was last published of it. */
export interface Diff {
  changes: Change[];
  /** Users last published whom the read does not hold any more. */
  gone: string[];
  top: RankedView[];
  topChanged: boolean;
}

/** Compares a ranking's read (its first places) with what was last published of it. */
export function diffRanking(seen: Map<string, string>, ranked: RankedView[]): Diff {
  const changes: Change[] = [];
  const present = new Set<string>();
  for (const r of ranked) {
    present.add(r.userId);
    const was = seen.get(r.userId);
    if (was === seenText(r.rank, r.value)) continue;
    const before = seenPlace(was);
    changes.push({ ...r, previousRank: before?.rank ?? null, previousValue: before?.value ?? null });
  }
  const gone = [...seen.keys()].filter((u) => !present.has(u));
  const previousTop = [...seen].map(([userId, v]) => ({ userId, ...seenPlace(v)! }))
    .filter((r) => r.rank <= TOP).sort((a, b) => a.rank - b.rank);
  const top = ranked.slice(0, TOP);
  return { changes, gone, top, topChanged: JSON.stringify(previousTop) !== JSON.stringify(top) };
}

/** Gives the users the publisher never saw their place before, as their placement recorded it (their rank history). */
export async function placesBefore(deps: Deps, k: Pick<LeaderboardKeys, 'history'>, unseen: Change[]): Promise<void> {
  if (unseen.length === 0) return;
  const { redis } = deps;
  const latest = await Promise.all(sentTogether(redis, () => unseen.map((c) => redis.lindex(k.history(c.userId), 0))));
  unseen.forEach((c, i) => {
    const raw = latest[i];
    if (raw === null) return;
    const before = parseRankChange(raw);
    c.previousRank = before.previousRank;
    c.previousValue = before.previousValue;
  });
}

/** What was last published of each ranking: its `:lv` hash, read once, written back at most every SAVE_MS. */
export class SeenRankings {
  private readonly deps: Deps;
  private readonly seen = new Map<string, Map<string, string>>();
  /** Of each ranking, the users whose value changed while no entry read named them: their place before, and when. */
  private readonly pending = new Map<string, Map<string, { previousRank: number | null; previousValue: number | null; at: number }>>();
  /** The users of each ranking whose entry in its `:lv` hash is not written yet, and when it was last written. */
  private readonly unsaved = new Map<string, { users: Set<string>; savedAt: number }>();

  constructor(deps: Deps) {
    this.deps = deps;
  }

  /** The places last published of a ranking (`live`: its `:lv` hash). */
  async of(live: string): Promise<Map<string, string>> {
    let seen = this.seen.get(live);
    if (seen !== undefined) return seen;
    seen = new Map(Object.entries(await this.deps.redis.hgetall(live)));
    if (this.seen.size > 10_000) this.seen.clear();
    this.seen.set(live, seen);
    return seen;
  }

  /**
   * The moves of a pass, best ranked first: the users whose value changed and whom an entry read
   * names; a change of a user no entry names yet waits PENDING_MS for one (then it is sent, from
   * the place before it), and is dropped after (a value placed while the publisher read nothing).
   */
  moves(live: string, changes: Change[], ranked: RankedView[], named: Named): Change[] {
    const now = Date.now();
    let pending = this.pending.get(live);
    if (pending === undefined) {
      if (this.pending.size > 10_000) this.pending.clear();
      this.pending.set(live, (pending = new Map()));
    }
    for (const [u, e] of pending) if (now - e.at > PENDING_MS) pending.delete(u);
    const out: Change[] = [];
    const changed = new Set<string>();
    for (const c of changes) {
      changed.add(c.userId);
      if (c.value === c.previousValue) continue;
      const was = pending.get(c.userId);
      if (named.has(c.userId)) {
        pending.delete(c.userId);
        out.push(was === undefined ? c : { ...c, previousRank: was.previousRank, previousValue: was.previousValue });
      } else if (was === undefined) {
        pending.set(c.userId, { previousRank: c.previousRank, previousValue: c.previousValue, at: now });
      }
    }
    if (pending.size > 0) {
      for (const r of ranked) {
        const was = changed.has(r.userId) || !named.has(r.userId) ? undefined : pending.get(r.userId);
        if (was === undefined) continue;
        pending.delete(r.userId);
        if (was.previousValue !== r.value) out.push({ ...r, previousRank: was.previousRank, previousValue: was.previousValue });
      }
    }
    return out.sort((a, b) => a.rank - b.rank);
  }

  /** Notes the places published (changes) and the users gone; writes them when SAVE_MS has passed. */
  async remember(live: string, seen: Map<string, string>, changes: Change[], gone: string[]): Promise<void> {
    for (const c of changes) seen.set(c.userId, seenText(c.rank, c.value));
    for (const u of gone) seen.delete(u);
    let unsaved = this.unsaved.get(live);
    if (unsaved === undefined) this.unsaved.set(live, (unsaved = { users: new Set(), savedAt: 0 }));
    for (const c of changes) unsaved.users.add(c.userId);
    for (const u of gone) unsaved.users.add(u);
    if (Date.now() - unsaved.savedAt >= SAVE_MS) await this.save(live, seen, unsaved);
  }

  private async save(key: string, seen: Map<string, string>, unsaved: { users: Set<string>; savedAt: number }): Promise<void> {
    const users = [...unsaved.users];
    unsaved.users.clear();
    unsaved.savedAt = Date.now();
    const set = users.filter((u) => seen.has(u));
    const gone = users.filter((u) => !seen.has(u));
    const writes: Promise<unknown>[] = [];
    if (set.length > 0) writes.push(this.deps.redis.hset(key, ...set.flatMap((u) => [u, seen.get(u)!])));
    if (gone.length > 0) writes.push(this.deps.redis.hdel(key, ...gone));
    await Promise.all(writes);
  }
}
