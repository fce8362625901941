/**
 * Live updates of the leaderboards (docs/live.md): the boards an entry of the log may
 * move are marked, and a pass every PASS_MS reads each marked board's ranking (its first
 * MAX_READ members) and compares it with what the publisher last published of it, kept in Redis
 * (the run's `:lv` hash, written at most every SAVE_MS: a publisher that takes over compares with
 * what was published up to a second before it, and may send a move again):
 * - on `leaderboard:<key>`: a `leaderboard.rank_changed` for each user whose value changed (a
 *   newcomer too), at most MOVES_PER_PASS a pass, the best ranked first, and a
 *   `leaderboard.changed` when the top 10 changed;
 * - a move is sent only for a user named by an entry that marked the board: a value that changed
 *   with no entry read for it (while the publisher read nothing, no socket wanting any topic, or
 *   placed after its marks ran out) is taken as it is, silently, so a board followed again after a
 *   quiet spell sends what moves from then on, not everyone placed meanwhile as a newcomer; a user
 *   it sends whom it never saw has their place before from their rank history (what their
 *   placement recorded);
 * - on `user:<id>`: a `leaderboard.rank_changed` whenever the user's value changed (not when
 *   others overtake them: a move of one user shifts every user below, and would cost a message each).
 * An entry is appended before its event's placement (phase 2, src/engine/event/phase2.ts), so a
 * board stays marked for PASSES passes: a placement that lands after the first pass is seen by
 * the next. Payloads as the webhooks' (src/engine/webhooks/rankings.ts), but on the board's topic
 * cut to what any client key may see (src/domain/live/visibility.ts). Boards are followed
 * whether or not anyone wants them (so the first change after a quiet spell is sent like any
 * other); only the messages and the users' reads are skipped for topics nobody wants.
 */
import { isControl } from '../../domain/notifications/rules.js';
import { boardTopic, userTopic } from '../../domain/live/topics.js';
import { sharedMessage, type SharedMessage } from '../../domain/live/visibility.js';
import { boardView } from '../../domain/leaderboards/runs.js';
import { capOf } from '../../domain/leaderboards/cap.js';
import { parseRankChange } from '../../domain/leaderboards/rank-history.js';
import { userView } from '../../domain/users.js';
import type { Leaderboard } from '../../model/entities.js';
import type { LeaderboardChangedData, LeaderboardRankChangedData, LiveBoardView, RankedView } from '../../model/views.js';
import { sentTogether } from '../../redis/coalesce.js';
import { seenPlace, seenText } from '../../redis/rankings.js';
import { readRunPlaces, shardOf } from '../../redis/sharded-rankings.js';
import { runShards } from '../leaderboards/shards.js';
import type { Context } from '../context.js';
import { publish, scopedTopic } from './topic-store.js';
import type { WantedTopics } from './wanted.js';

/** How often marked boards are read (ms). */
export const PASS_MS = 100;
/** Passes a mark lasts. */
const PASSES = 3;
/**
 * Moves a pass sends on a board's topic at most (the best ranked first): a board that thousands of
 * events move a second would otherwise send each of its subscribers thousands of messages a
 * second (with 1,000 subscribers, the bench's machine spent more on those than on the events).
 * With the top 10 (`leaderboard.changed`, once a pass at most), a board's topic carries at most 40
 * messages a second; a user's own topic gets every move of theirs.
 */
export const MOVES_PER_PASS = 3;
/** How often a run's `:lv` hash is written, at most (ms): a publisher that takes over reads it. */
const SAVE_MS = 1000;
/** Members of a ranking followed (an uncapped board's first 1,000: its rank changes below them are not published). */
const MAX_READ = 1000;
const TOP = 10;

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'log'>;

interface Marked {
  tenant: string;
  boardId: string;
  run: string;
  runEnd: string | null;
  passes: number;
  /** The users of the entries that marked it while the mark lasts. */
  users: Set<string>;
}

interface Change extends RankedView {
  previousRank: number | null;
  previousValue: number | null;
}

export class LiveBoards {
  private readonly deps: Deps;
  private readonly wanted: WantedTopics;
  private readonly marked = new Map<string, Marked>();
  /** What was last published of each run and group: its `:lv` hash, read once. */
  private readonly seen = new Map<string, Map<string, string>>();
  /** The users of each run whose entry in its `:lv` hash is not written yet, and when it was last written. */
  private readonly unsaved = new Map<string, { users: Set<string>; savedAt: number }>();
  /** Messages published (for the metrics and tests). */
  published = 0;

  constructor(deps: Deps, wanted: WantedTopics) {
    this.deps = deps;
    this.wanted = wanted;
  }

  /** Marks a board run that an entry of `userId` may move. */
  mark(tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, userId: string): void {
    const id = `${tenant}\u0000${lb.id}\u0000${run.start}`;
    const m = this.marked.get(id);
    if (m === undefined) this.marked.set(id, { tenant, boardId: lb.id, run: run.start, runEnd: run.end, passes: PASSES, users: new Set([userId]) });
    else {
      m.passes = PASSES;
      m.users.add(userId);
    }
  }

  get pending(): number {
    return this.marked.size;
  }

  /** Reads every marked board once; answers the messages published. */
  async pass(): Promise<number> {
    const before = this.published;
    const work = [...this.marked.entries()];
    for (const [id, m] of work) {
      if (--m.passes <= 0) this.marked.delete(id);
    }
    for (const [, m] of work) {
      const lb = this.deps.store.current.leaderboards.get(m.boardId);
      // Stored `scheduled` until an admin changes it: active from its start (the mark came from a run).
      if (lb === undefined || lb.status === 'inactive' || lb.status === 'finished') continue;
      const groups = lb.breakdownAttributes.length === 0 ? [''] : await this.deps.redis.smembers(this.deps.keys.leaderboardIndex(m.tenant, lb.id).groups(m.run));
      for (const group of groups) await this.passRun(m.tenant, lb, { start: m.run, end: m.runEnd }, group, m.users);
    }
    return this.published - before;
  }

  private async passRun(tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, group: string, named: Set<string>): Promise<void> {
    const { redis, keys } = this.deps;
    // The run's first shard keeps what was published of the whole run (its `:lv` hash).
    const shards = runShards(keys, tenant, lb, run.start, group);
    const k = shards[0];
    let seen = this.seen.get(k.live);
    const [ranked, stored] = await Promise.all([
      readRunPlaces(redis, shards, 0, Math.min(capOf(lb), MAX_READ)) as Promise<RankedView[]>,
      seen === undefined ? redis.hgetall(k.live) : Promise.resolve(null),
    ]);
    if (seen === undefined) {
      seen = new Map(Object.entries(stored ?? {}));
      if (this.seen.size > 10_000) this.seen.clear();
      this.seen.set(k.live, seen);
    }
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
    if (changes.length === 0 && gone.length === 0) return;
    const previousTop = [...seen].map(([userId, v]) => ({ userId, ...seenPlace(v)! }))
      .filter((r) => r.rank <= TOP).sort((a, b) => a.rank - b.rank);
    const top = ranked.slice(0, TOP);
    const topChanged = JSON.stringify(previousTop) !== JSON.stringify(top);

    const boardWanted = this.wanted.has(scopedTopic(tenant, boardTopic(lb.key)));
    // Those whose value changed (newcomers too) by an entry read; those they overtook only moved down a rank.
    const moved = changes.filter((c) => c.value !== c.previousValue && named.has(c.userId));
    // One the publisher never saw (placed while it read nothing): its place before, as its placement recorded it.
    const unseen = moved.filter((c) => !seen.has(c.userId));
    if (unseen.length > 0) {
      const latest = await Promise.all(sentTogether(redis, () => unseen.map((c) => redis.lindex(shardOf(shards, c.userId).history(c.userId), 0))));
      unseen.forEach((c, i) => {
        const raw = latest[i];
        if (raw === null) return;
        const before = parseRankChange(raw);
        c.previousRank = before.previousRank;
        c.previousValue = before.previousValue;
      });
    }
    const movers = boardWanted ? moved.slice(0, MOVES_PER_PASS) : [];
    const toUsers = moved.filter((c) => this.wanted.has(scopedTopic(tenant, userTopic(c.userId))));
    const readers = [...new Set([...movers, ...toUsers].map((c) => c.userId))];
    const snapshot = this.deps.store.current;
    const hashes = readers.length === 0 ? [] : await Promise.all(sentTogether(redis, () => readers.map((u) => redis.hgetall(keys.forUser(tenant, u).user))));
    const users = new Map(readers.map((u, i) => [u, hashes[i]]));
    const board: LiveBoardView = { ...boardView(lb, snapshot, 'active', run), ...(group === '' ? {} : { breakdownAttributeValue: group }) };
    const rankChanged = (c: Change): LeaderboardRankChangedData | null => {
      const h = users.get(c.userId);
      if (h === undefined || h.id === undefined) return null;
      return {
        user: userView(h, isControl(snapshot.notifications, tenant, h)),
        leaderboard: { ...board, rank: c.rank, value: c.value, previousRank: c.previousRank, previousValue: c.previousValue },
      };
    };
    // The board's messages of the pass in one publish, public fields only; each user's in its own, with the user's profile.
    const onBoard: SharedMessage[] = [];
    for (const c of movers) {
      const data = rankChanged(c);
      if (data !== null) onBoard.push(sharedMessage('leaderboard.rank_changed', data));
    }
    if (boardWanted && topChanged && top.length > 0) {
      const changed: LeaderboardChangedData = { leaderboard: { ...board, rankings: top } };
      onBoard.push(sharedMessage('leaderboard.changed', changed));
    }
    const sends: Promise<number>[] = [];
    let messages = onBoard.length;
    sentTogether(redis, () => {
      if (onBoard.length > 0) sends.push(publish(this.deps, tenant, boardTopic(lb.key), onBoard));
      for (const c of toUsers) {
        const data = rankChanged(c);
        if (data === null) continue;
        sends.push(publish(this.deps, tenant, userTopic(c.userId), [{ type: 'leaderboard.rank_changed', data: JSON.stringify(data) }]));
        messages++;
      }
    });
    await Promise.all(sends);
    this.published += messages;
    for (const c of changes) seen.set(c.userId, seenText(c.rank, c.value));
    for (const u of gone) seen.delete(u);
    let unsaved = this.unsaved.get(k.live);
    if (unsaved === undefined) this.unsaved.set(k.live, (unsaved = { users: new Set(), savedAt: 0 }));
    for (const c of changes) unsaved.users.add(c.userId);
    for (const u of gone) unsaved.users.add(u);
    if (Date.now() - unsaved.savedAt >= SAVE_MS) await this.save(k.live, seen, unsaved);
  }

  /** Writes what changed of a run's `:lv` hash since it was last written. */
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
