/**
 * Live updates of the leaderboards (docs/live.md): the boards an entry of the log may
 * move are marked, and a pass every PASS_MS reads each marked board's ranking (its first
 * MAX_READ members) and compares it with what the publisher last published of it, kept in Redis
 * (the run's `:lv` hash, written at most once a second: a publisher that takes over compares with
 * what was published up to a second before it, and may send a move again: src/engine/live/ranking-diff.ts):
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
 *   others overtake them: a move of one user shifts every user below, and would cost a message each),
 *   below an uncapped board's first MAX_READ too, with the exact rank;
 * - a league's cohorts on `league:<key>` (src/engine/live/cohorts.ts).
 * An entry is appended before its event's placement (phase 2, src/engine/event/phase2.ts), so a
 * board stays marked for PASSES passes, and beyond while a user an entry named has not been seen
 * moving on it (nor in their league cohort), up to PENDING_MS after the entry: a placement held up
 * behind a busy moment is still sent. A user stays named for PENDING_MS after their last entry.
 * Payloads as the webhooks' (src/engine/webhooks/rankings.ts), but on the board's topic cut to what
 * any client key may see (src/domain/live/visibility.ts). Boards are followed
 * whether or not anyone wants them (so the first change after a quiet spell is sent like any
 * other); only the messages and the users' reads are skipped for topics nobody wants.
 */
import { isControl } from '../../domain/notifications/rules.js';
import { boardTopic, userTopic } from '../../domain/live/topics.js';
import { sharedMessage, type SharedMessage } from '../../domain/live/visibility.js';
import { boardView } from '../../domain/leaderboards/runs.js';
import { capOf } from '../../domain/leaderboards/cap.js';
import { userView } from '../../domain/users.js';
import type { Leaderboard } from '../../model/entities.js';
import type { LeaderboardChangedData, LeaderboardRankChangedData, LiveBoardView, RankedView } from '../../model/views.js';
import { sentTogether } from '../../redis/coalesce.js';
import type { LeaderboardKeys } from '../../redis/keys.js';
import { seenText } from '../../redis/rankings.js';
import { placesOfRunUsers, readRunPlaces, shardOf, type Shards } from '../../redis/sharded-rankings.js';
import { runShards } from '../../redis/board-shards.js';
import type { Context } from '../context.js';
import { LiveCohorts } from './cohorts.js';
import { diffRanking, MOVES_PER_PASS, PENDING_MS, placesBefore, SeenRankings, type Change } from './ranking-diff.js';
import { publish, scopedTopic } from './topic-store.js';
import type { WantedTopics } from './wanted.js';

/** How often marked boards are read (ms). */
export const PASS_MS = 100;
/** Passes a mark lasts. */
const PASSES = 3;
/**
 * Members of a ranking read each pass: an uncapped board's first 1,000. Below them, only the users
 * named by the entries read whose own topic is wanted are read, one by one (their own moves).
 */
const MAX_READ = 1000;

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'log'>;

interface Marked {
  tenant: string;
  boardId: string;
  run: string;
  runEnd: string | null;
  passes: number;
  /** The users of the entries that marked it, and when each was last named (ms): oldest first. */
  users: Map<string, number>;
  /** Of those, the ones seen moving on the board since they were last named. */
  onBoard: Set<string>;
  /** A league's board: of those, the ones its cohorts' pass is done with (src/engine/live/cohorts.ts). */
  inCohort: Set<string>;
  league: boolean;
}

export class LiveBoards {
  private readonly deps: Deps;
  private readonly wanted: WantedTopics;
  private readonly marked = new Map<string, Marked>();
  /** What was last published of each run and group. */
  private readonly seen: SeenRankings;
  /** Of each run, the place last sent to each user below its first MAX_READ (`<rank>|<value>`). */
  private readonly sentBelow = new Map<string, Map<string, string>>();
  private readonly cohorts: LiveCohorts;
  private messages = 0;

  constructor(deps: Deps, wanted: WantedTopics) {
    this.deps = deps;
    this.wanted = wanted;
    this.seen = new SeenRankings(deps);
    this.cohorts = new LiveCohorts(deps, wanted, this.seen);
  }

  /** Messages published (for the metrics and tests). */
  get published(): number {
    return this.messages + this.cohorts.published;
  }

  /** Marks a board run that an entry of `userId` may move. */
  mark(tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, userId: string): void {
    const id = `${tenant}\u0000${lb.id}\u0000${run.start}`;
    let m = this.marked.get(id);
    if (m === undefined) {
      m = { tenant, boardId: lb.id, run: run.start, runEnd: run.end, passes: PASSES, users: new Map(), onBoard: new Set(), inCohort: new Set(), league: Boolean(lb.league) };
      this.marked.set(id, m);
    }
    m.passes = PASSES;
    // Named again: last in the order of naming, and waited for again.
    forget(m, userId);
    m.users.set(userId, Date.now());
  }

  get pending(): number {
    return this.marked.size;
  }

  /** Reads every marked board once; answers the messages published. */
  async pass(): Promise<number> {
    const before = this.published;
    const now = Date.now();
    const work = [...this.marked.entries()];
    for (const [id, m] of work) {
      forgetNamedBefore(m, now - PENDING_MS);
      if (--m.passes <= 0 && !someoneWaits(m)) this.marked.delete(id);
    }
    for (const [id, m] of work) {
      const lb = this.deps.store.current.leaderboards.get(m.boardId);
      // Stored `scheduled` until an admin changes it: active from its start (the mark came from a run).
      if (lb === undefined || lb.status === 'inactive' || lb.status === 'finished') {
        this.marked.delete(id);
        continue;
      }
      const run = { start: m.run, end: m.runEnd };
      const groups = lb.breakdownAttributes.length === 0 ? [''] : await this.deps.redis.smembers(this.deps.keys.leaderboardIndex(m.tenant, lb.id).groups(m.run));
      for (const group of groups) seenMoving(m, m.onBoard, await this.passRun(m.tenant, lb, run, group, m.users), now);
      if (lb.league) {
        const waiting = [...m.users.keys()].filter((u) => !m.inCohort.has(u));
        seenMoving(m, m.inCohort, await this.cohorts.pass(m.tenant, lb, run, m.users, waiting), now);
      }
    }
    return this.published - before;
  }

  /** Reads a run's ranking (of one group) and publishes what moved; answers the users seen moving. */
  private async passRun(tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, group: string, named: ReadonlyMap<string, number>): Promise<string[]> {
    const { redis, keys } = this.deps;
    // The run's first shard keeps what was published of the whole run (its `:lv` hash).
    const shards = runShards(keys, tenant, lb, run.start, group);
    const k = shards[0];
    const [ranked, seen] = await Promise.all([
      readRunPlaces(redis, shards, 0, Math.min(capOf(lb), MAX_READ)) as Promise<RankedView[]>, this.seen.of(k.live),
    ]);
    const { changes, gone, top, topChanged } = diffRanking(seen, ranked);
    // An uncapped board's users below its first MAX_READ whose own value changed: their user topics.
    const below = capOf(lb) > MAX_READ && ranked.length === MAX_READ ? await this.movedBelow(tenant, shards, ranked, named) : [];
    // Those whose value changed (newcomers too) by an entry read; those they overtook only moved down a rank.
    const moved = this.seen.moves(k.live, changes, ranked, named);
    if (changes.length === 0 && gone.length === 0 && moved.length === 0 && below.length === 0) return [];

    const boardWanted = this.wanted.has(scopedTopic(tenant, boardTopic(lb.key)));
    // One the publisher never saw (placed while it read nothing): its place before, as its placement recorded it.
    await placesBefore(this.deps, historyOf(shards), moved.filter((c) => c.previousValue === null));
    const movers = boardWanted ? moved.slice(0, MOVES_PER_PASS) : [];
    const toUsers = [...moved.filter((c) => this.wanted.has(scopedTopic(tenant, userTopic(c.userId)))), ...below];
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
    this.messages += messages;
    await this.seen.remember(k.live, seen, changes, gone);
    return [...moved, ...below].map((c) => c.userId);
  }

  /**
   * The users named by the entries read, below the first MAX_READ of an uncapped board's ranking and
   * with their user topic wanted, whose place changed since it was last sent them: their exact rank
   * (ZREVRANK), and their place before as their placement recorded it (their rank history).
   */
  private async movedBelow(tenant: string, shards: Shards, ranked: RankedView[], named: ReadonlyMap<string, number>): Promise<Change[]> {
    const { redis } = this.deps;
    const k = shards[0];
    const inTop = new Set(ranked.map((r) => r.userId));
    const candidates = [...named.keys()].filter((u) => !inTop.has(u) && this.wanted.has(scopedTopic(tenant, userTopic(u))));
    if (candidates.length === 0) return [];
    const places = await placesOfRunUsers(redis, shards, candidates);
    let sent = this.sentBelow.get(k.live);
    if (sent === undefined) {
      if (this.sentBelow.size > 10_000) this.sentBelow.clear();
      this.sentBelow.set(k.live, (sent = new Map()));
    }
    const out: Change[] = [];
    for (const p of places) {
      // Moved into the first MAX_READ since the read: the next pass's read has them.
      if (p.rank <= MAX_READ || sent.get(p.userId) === seenText(p.rank, p.value)) continue;
      if (sent.size > 100_000) sent.clear();
      sent.set(p.userId, seenText(p.rank, p.value));
      out.push({ ...p, previousRank: null, previousValue: null });
    }
    await placesBefore(this.deps, historyOf(shards), out);
    return out.filter((c) => c.value !== c.previousValue);
  }
}

function forget(m: Marked, userId: string): void {
  m.users.delete(userId);
  m.onBoard.delete(userId);
  m.inCohort.delete(userId);
}

/** Forgets the users of a mark last named before `until` (ms): the oldest come first. */
function forgetNamedBefore(m: Marked, until: number): void {
  for (const [u, at] of m.users) {
    if (at >= until) break;
    forget(m, u);
  }
}

/**
 * Notes the users a pass saw moving (or is done with), each where named before the pass began (in an
 * earlier millisecond): one named again while it read waits for that entry's placement.
 */
function seenMoving(m: Marked, seen: Set<string>, users: string[], passBegan: number): void {
  for (const u of users) if ((m.users.get(u) ?? Infinity) < passBegan) seen.add(u);
}

/** Whether a user the entries named has not been seen moving on the mark's board (or a league's cohort) yet. */
function someoneWaits(m: Marked): boolean {
  for (const u of m.users.keys()) if (!m.onBoard.has(u) || (m.league && !m.inCohort.has(u))) return true;
  return false;
}

/** A run's users' rank histories, each in the shard the user is placed in. */
function historyOf(shards: Shards): Pick<LeaderboardKeys, 'history'> {
  return { history: (userId) => shardOf(shards, userId).history(userId) };
}
