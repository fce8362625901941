/**
 * The live publisher (docs/live.md; docs/live.md): one worker at a time (a lease in
 * Redis) reads every partition's event log as it is appended (src/engine/live/tail.ts), from the
 * positions it keeps in Redis, and publishes each change once on its topic
 * (src/engine/live/topic-store.ts: numbered, kept for `since`, sent on the topic's shard channel):
 * the user's own changes (src/domain/live/changes.ts) on `user:<id>` for the topics some socket
 * wants (src/engine/live/wanted.ts), and the boards an entry may move marked for the board passes
 * (src/engine/live/boards.ts). A history import's events (src/model/log.ts imported) are told to
 * nobody. Nothing of it is on the event's request path. The clock's events
 * (src/engine/live/clock.ts) are made by the webhooks' passes: the publisher hands their notes
 * (ClockNotes) the entries of the users whose topic is wanted, and each user whose topic becomes
 * wanted (all of them, when this worker takes the lease).
 *
 * A position moves once the batch it covers is published: a publisher that dies part-way leaves
 * the batch to the next, which may send some of its messages again (with new numbers; never
 * fewer). A publisher that takes over where the log no longer holds what follows its position
 * (trimmed while no publisher ran) sends a `resync` on every topic wanted.
 *
 * A user's topic that becomes wanted is caught up: the entries of the user in the CATCH_UP_MS before
 * the publisher heard of it, up to the last it had read then, are read again from the log and
 * published (an event that follows the first `subscribed` at once may be read before the word
 * that its topic is wanted reaches the publisher; a message of one just before subscribing is
 * harmless: every payload gives the state, not a difference).
 *
 * While no socket wants any topic, the publisher reads nothing (an installation without live
 * sockets pays nothing for them; on a Cluster the tail would poll every partition each 10 ms).
 * When a topic is wanted again, it follows the logs from WAKE_MARGIN_MS before that moment (the
 * stream ids are Redis's times): what a new subscriber's events appended since its `subscribed`
 * are read, whatever the clocks' difference up to that margin.
 */
import { randomUUID } from 'node:crypto';
import { isControl } from '../../domain/notifications/rules.js';
import { metricBoards, pointsBoards, runOf, streakBoards } from '../../domain/leaderboards/runs.js';
import { changesOfEntry, mayChange, type LiveChange } from '../../domain/live/changes.js';
import { parseTopic, userTopic } from '../../domain/live/topics.js';
import { resyncMessage } from '../../domain/live/visibility.js';
import { localDay } from '../../domain/time.js';
import { userView, type UserView } from '../../domain/users.js';
import type { ParsedEntry } from '../../domain/webhooks/events.js';
import { compareStreamIds, entryBody, eventActivity, imported, nextStreamId, type EventAward, type LogBody } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import { sentTogether } from '../../redis/coalesce.js';
import type { RedisClient } from '../../redis/client.js';
import type { Context } from '../context.js';
import { LiveBoards, PASS_MS } from './boards.js';
import { LogTail, type TailEntry } from './tail.js';
import { publish, scopedTopic, unscope } from './topic-store.js';
import { WantedTopics, type LiveInterest } from './wanted.js';

/** How long the lease lasts, and how often its holder renews it (ms). */
const LEASE_MS = 10_000;
const RENEW_MS = 2000;
/** How long a worker without the lease waits before trying again, and a loop after a failure (ms). */
const RETRY_MS = 1000;
/** How often a publisher with no topic wanted looks again (ms). */
const IDLE_MS = 50;
/** How far before the moment a topic is wanted again the logs are read from (ms). */
const WAKE_MARGIN_MS = 5000;
/**
 * How far back a user's topic that becomes wanted is caught up (ms), and how many entries of its
 * partition at most: from when its api process took it up, when its ring says (less
 * TAKE_MARGIN_MS: the clocks of the api's machine and of Redis, which numbers the log, may differ a
 * little), and CATCH_UP_MS back at most.
 */
const CATCH_UP_MS = 2000;
const TAKE_MARGIN_MS = 100;
const CATCH_UP_COUNT = 2000;

/** A user topic to catch up: its partition's entries after `from` (a stream id) up to `upTo`, the last read when it became wanted. */
interface CatchUp {
  scoped: string;
  partition: number;
  from: string;
  upTo: string;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'settings' | 'log'>;

export interface LiveConnections {
  /** A connection for the blocking reads of the logs. */
  reader: RedisClient;
  /** Watches a connection the publisher makes (the outage account's `watch`). */
  watch(client: object): void;
  /**
   * Where a failure goes (the process's Redis outage account: one that Redis's connection explains
   * is counted, not logged each time, src/redis/outage.ts).
   */
  warn(err: unknown, what: string): void;
}

/** A user whose topic is wanted. */
export interface FollowedUser {
  tenant: string;
  userId: string;
}

/** The user a scoped topic follows, or null for a board's. */
function followedUser(scoped: string): FollowedUser | null {
  const { tenant, topic } = unscope(scoped);
  const t = parseTopic(topic);
  return t?.kind === 'user' ? { tenant, userId: t.id } : null;
}

/** What the clock's events need noted (src/engine/webhooks/clock-notes.ts). */
export interface ClockNotes {
  /** The parsed entries of the users whose topic is wanted. */
  logged(entries: ParsedEntry[]): Promise<void>;
  /** Users whose topic became wanted. */
  followed(users: FollowedUser[]): Promise<void>;
}

export interface PublisherStats {
  /** Messages published since start. */
  published: number;
  /** Log entries read since start. */
  read: number;
  /** Whether this worker holds the lease. */
  holding: boolean;
}

export class LivePublisher {
  readonly id = randomUUID();
  private readonly deps: Deps;
  private readonly warn: LiveConnections['warn'];
  private readonly tail: LogTail;
  private readonly wanted: WantedTopics;
  private readonly boards: LiveBoards;
  private positions: string[] = [];
  /** The last entry examined of each partition (positions move once a batch is published). */
  private examined: string[] = [];
  private catchUps: CatchUp[] = [];
  private holding = false;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private boardTimer: NodeJS.Timeout | null = null;
  private boardPass: Promise<unknown> | null = null;
  /** The users whose topic became wanted, to hand the clock's notes (each PASS_MS at most), and that noting under way. */
  private toNote: FollowedUser[] = [];
  private noting: Promise<unknown> | null = null;
  private renewedAt = 0;
  /** No topic was wanted at this publisher's last look: the logs were not followed. */
  private idle = false;
  private published = 0;
  private read = 0;

  private readonly notes: ClockNotes;

  constructor(deps: Deps, conns: LiveConnections, notes: ClockNotes) {
    this.deps = deps;
    this.notes = notes;
    this.warn = conns.warn;
    this.tail = new LogTail(conns.reader, deps.keys);
    this.wanted = new WantedTopics(deps.redis, deps.keys, conns.warn, conns.watch, {
      fresh: (scoped, takenAt) => this.fresh(scoped, takenAt),
      dropped: (scoped) => this.dropped(scoped),
    });
    this.boards = new LiveBoards(deps, this.wanted);
  }

  /** The topics wanted, as this worker process knows them (its clock's events go to them: src/engine/live/clock.ts). */
  get interest(): LiveInterest {
    return this.wanted;
  }

  get stats(): PublisherStats {
    return { published: this.published + this.boards.published, read: this.read, holding: this.holding };
  }

  async start(): Promise<void> {
    await this.wanted.start();
    this.loop = this.run();
    this.boardTimer = setInterval(() => {
      if (this.holding && this.noting === null && this.toNote.length > 0) {
        const users = this.toNote;
        this.toNote = [];
        this.noting = this.noteFollowed(users)
          .catch((err: unknown) => this.warn(err, 'live: could not note the streaks of the users newly followed'))
          .finally(() => { this.noting = null; });
      }
      if (!this.holding || this.boardPass !== null || this.boards.pending === 0) return;
      this.boardPass = this.boards.pass()
        .catch((err: unknown) => this.warn(err, 'live: a leaderboard pass failed; the next one reads the boards again'))
        .finally(() => { this.boardPass = null; });
    }, PASS_MS);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.holding) {
          if (!(await this.acquire())) {
            await sleep(RETRY_MS);
            continue;
          }
        }
        const entries = await this.follow();
        if (this.stopped) break;
        // Before what follows: a topic's messages go out in the log's order.
        if (this.catchUps.length > 0) await this.catchUp();
        if (entries.length > 0) await this.handle(entries);
        if (Date.now() - this.renewedAt >= RENEW_MS) await this.renew();
      } catch (err) {
        if (this.stopped) break;
        this.warn(err, 'live: the publisher failed; it reads the logs again from its positions');
        this.holding = false;
        await sleep(RETRY_MS);
      }
    }
  }

  /** The entries after the positions; none, after a pause, while no topic is wanted. */
  private async follow(): Promise<TailEntry[]> {
    if (!this.wanted.any()) {
      this.idle = true;
      await sleep(IDLE_MS);
      return [];
    }
    if (this.idle) {
      this.idle = false;
      const from = `${Date.now() - WAKE_MARGIN_MS}-0`;
      this.positions = this.positions.map((at) => (compareStreamIds(at, from) < 0 ? from : at));
    }
    return this.tail.read(this.positions);
  }

  /** Takes the lease if no one holds it, then the positions (and a resync where the log lost some). */
  private async acquire(): Promise<boolean> {
    const { redis, keys } = this.deps;
    const got = await redis.set(keys.live.lease, this.id, 'PX', LEASE_MS, 'NX');
    if (got === null) return (await redis.get(keys.live.lease)) === this.id && this.resume();
    return this.resume();
  }

  private async resume(): Promise<boolean> {
    const { redis, keys } = this.deps;
    this.renewedAt = Date.now();
    const stored = await redis.hgetall(keys.live.positions);
    const [ends, starts] = await Promise.all([this.tail.ends(), this.tail.starts()]);
    let lost = false;
    this.positions = ends.map((end, p) => {
      const at = stored[String(p)];
      if (at === undefined) return end;
      const first = starts[p];
      // The log's first entry is after the one following the position: what was between may have been trimmed.
      if (first !== null && compareStreamIds(first, nextStreamId(at)) > 0 && compareStreamIds(at, '0-0') > 0) lost = true;
      return at;
    });
    this.examined = [...this.positions];
    this.catchUps = [];
    this.toNote = [];
    if (lost) await this.resyncAll();
    // What a worker that held the lease noted may not cover every topic wanted now.
    await this.noteFollowed(this.wanted.all().map(followedUser).filter((u) => u !== null));
    this.holding = true;
    this.deps.log.info({ worker: this.id, lost }, 'live: this worker publishes the live updates');
    return true;
  }

  private async renew(): Promise<void> {
    const { redis, keys } = this.deps;
    const holder = await redis.get(keys.live.lease);
    if (holder !== this.id) {
      this.holding = false;
      this.deps.log.info({ worker: this.id, holder }, 'live: another worker publishes the live updates now');
      return;
    }
    await redis.pexpire(keys.live.lease, LEASE_MS);
    this.renewedAt = Date.now();
  }

  /** A `resync` on every topic wanted: what a client resumes from may be gone. */
  private async resyncAll(): Promise<void> {
    const topics = this.wanted.all();
    for (let i = 0; i < topics.length; i += 1000) {
      const sends = sentTogether(this.deps.redis, () => topics.slice(i, i + 1000).map((scoped) => {
        const { tenant, topic } = unscope(scoped);
        return publish(this.deps, tenant, topic, [resyncMessage()]);
      }));
      await Promise.all(sends);
      this.published += sends.length;
    }
  }

  /** A topic became wanted: a user's is caught up (what was read of its partition until now, since it was taken up). */
  private fresh(scoped: string, takenAt?: number): void {
    if (!this.holding) return;
    const user = followedUser(scoped);
    if (user === null) return;
    this.toNote.push(user);
    const partition = this.deps.keys.partitionOf(user.tenant, user.userId);
    const upTo = this.examined[partition];
    const back = Date.now() - CATCH_UP_MS;
    const from = takenAt === undefined ? back : Math.max(back, takenAt - TAKE_MARGIN_MS);
    if (upTo !== undefined) this.catchUps.push({ scoped, partition, from: `${from}-0`, upTo });
  }

  /**
   * A topic's last holder let it go: it is not published any more, so its want marker goes (a
   * socket that takes it up again gets a `resync` first: what it missed meanwhile was skipped).
   */
  private dropped(scoped: string): void {
    if (!this.holding) return;
    const { tenant, topic } = unscope(scoped);
    this.deps.redis.del(this.deps.keys.liveTopic(tenant, topic).want)
      .catch((err: unknown) => this.warn(err, 'live: could not mark a topic let go'));
  }

  /**
   * Publishes the entries the topics that became wanted missed (CatchUp), in the log's order: one
   * read per partition (a burst of subscriptions, thousands of users, reads each partition once),
   * each entry's user read without parsing it, and only a caught-up user's entries parsed.
   */
  private async catchUp(): Promise<void> {
    const { redis, keys } = this.deps;
    const byPartition = new Map<number, Map<string, CatchUp>>();
    for (const c of this.catchUps) {
      let topics = byPartition.get(c.partition);
      if (topics === undefined) byPartition.set(c.partition, (topics = new Map()));
      topics.set(c.scoped, c);
    }
    this.catchUps = [];
    const ranges = [...byPartition].map(([partition, topics]) => {
      let from = '+';
      let upTo = '-';
      for (const c of topics.values()) {
        if (from === '+' || compareStreamIds(c.from, from) < 0) from = c.from;
        if (upTo === '-' || compareStreamIds(c.upTo, upTo) > 0) upTo = c.upTo;
      }
      return { partition, topics, from, upTo };
    }).filter((r) => compareStreamIds(r.from, r.upTo) <= 0);
    const reads = await Promise.all(sentTogether(redis, () => ranges.map((r) =>
      redis.xrange(keys.partitionLog(r.partition), r.from, r.upTo, 'COUNT', CATCH_UP_COUNT) as Promise<[string, string[]][]>)));
    const parsed: ParsedEntry[] = [];
    ranges.forEach((r, i) => {
      for (const [id, fields] of reads[i]) {
        const kind = fields[0];
        if (!mayChange(kind, fields) || imported(kind, fields)) continue;
        const act = kind === 'event' ? eventActivity(fields) : null;
        const e = act === null ? JSON.parse(entryBody(fields)) as LogBody : null;
        const tenant = act?.tenant ?? e?.t;
        const userId = act === null ? e?.u : JSON.parse(act.userJson) as string;
        if (tenant === undefined || userId === undefined) continue;
        const c = r.topics.get(scopedTopic(tenant, userTopic(userId)));
        if (c === undefined || compareStreamIds(id, c.from) < 0 || compareStreamIds(id, c.upTo) > 0) continue;
        parsed.push({ id, kind, e: e ?? JSON.parse(entryBody(fields)) as LogBody });
      }
    });
    if (parsed.length > 0) await this.publishParsed(parsed);
  }

  /** Hands the clock's notes users whose topic became wanted. */
  private async noteFollowed(users: FollowedUser[]): Promise<void> {
    for (let i = 0; i < users.length; i += 1000) await this.notes.followed(users.slice(i, i + 1000));
  }

  /** Publishes what a batch of entries calls for, then moves the positions past it. */
  private async handle(entries: TailEntry[]): Promise<void> {
    const { redis, keys } = this.deps;
    const snapshot = this.deps.store.current;
    this.read += entries.length;
    const parsed: ParsedEntry[] = [];
    for (const entry of entries) {
      const kind = entry.fields[0];
      this.examined[entry.partition] = entry.id;
      // A history import's events are told to nobody.
      if (imported(kind, entry.fields)) continue;
      const wantedEntry = this.examine(snapshot, kind, entry.fields);
      if (wantedEntry) parsed.push({ id: entry.id, kind, e: JSON.parse(entryBody(entry.fields)) as LogBody });
    }
    if (parsed.length > 0) await this.publishParsed(parsed);
    const moved = new Map<number, string>();
    for (const e of entries) moved.set(e.partition, e.id);
    for (const [p, id] of moved) this.positions[p] = id;
    await redis.hset(keys.live.positions, ...[...moved].flatMap(([p, id]) => [String(p), id]));
  }

  /** Publishes the changes of parsed entries on their users' topics, and hands them to the clock's notes. */
  private async publishParsed(parsed: ParsedEntry[]): Promise<void> {
    const { redis, keys, settings } = this.deps;
    const snapshot = this.deps.store.current;
    const ids = [...new Set(parsed.map(({ e }) => `${e.t}\u0000${e.u}`))];
    const hashes = await Promise.all(sentTogether(redis, () => ids.map((id) => {
      const [t, u] = id.split('\u0000');
      return redis.hgetall(keys.forUser(t, u).user);
    })));
    const users = new Map<string, UserView | null>(ids.map((id, i) => {
      const h = hashes[i];
      return [id, h.id === undefined ? null : userView(h, isControl(snapshot.notifications, id.split('\u0000')[0], h))];
    }));
    // Each user's messages of the batch in one publish, in the log's order.
    const byUser = new Map<string, LiveChange[]>();
    for (const entry of parsed) {
      const id = `${entry.e.t}\u0000${entry.e.u}`;
      const changes = changesOfEntry(settings.prefix, entry, snapshot, users.get(id) ?? null);
      if (changes.length === 0) continue;
      const list = byUser.get(id);
      if (list === undefined) byUser.set(id, changes);
      else list.push(...changes);
    }
    const sends = sentTogether(redis, () => [...byUser].map(([id, changes]) => {
      const [t, u] = id.split('\u0000');
      return publish(this.deps, t, userTopic(u), changes);
    }));
    await Promise.all(sends);
    for (const changes of byUser.values()) this.published += changes.length;
    // The wanted users' extensions and grants, for the clock's events (an expiry, a freeze check).
    await this.notes.logged(parsed);
  }

  /**
   * Marks the boards an entry may move, and answers whether its user's topic wants it (then it is
   * parsed): an event's tenant, user, day and metric read without parsing its body.
   */
  private examine(snapshot: Snapshot, kind: string, fields: string[]): boolean {
    if (kind === 'event') {
      const act = eventActivity(fields);
      if (act === null) return this.examineParsed(snapshot, kind, fields);
      const body = fields[1];
      const m = body.indexOf(',"m":"');
      const metricId = m < 0 ? '' : body.slice(m + 6, body.indexOf('"', m + 6));
      const userId = JSON.parse(act.userJson) as string;
      for (const lb of metricBoards(snapshot, metricId)) this.markBoard(act.tenant, userId, lb, act.day);
      let pa: string | undefined;
      for (let i = 2; i + 1 < fields.length; i += 2) if (fields[i] === 'pa') pa = fields[i + 1];
      if (pa !== undefined) this.markPoints(snapshot, act.tenant, userId, JSON.parse(pa) as EventAward[], act.day);
      if (act.sx !== undefined) for (const lb of streakBoards(snapshot)) this.markBoard(act.tenant, userId, lb, act.day);
      return mayChange(kind, fields) && this.wanted.has(scopedTopic(act.tenant, userTopic(userId)));
    }
    return this.examineParsed(snapshot, kind, fields);
  }

  private examineParsed(snapshot: Snapshot, kind: string, fields: string[]): boolean {
    if (kind !== 'event' && !mayChange(kind, fields)) return false;
    const e = JSON.parse(entryBody(fields)) as LogBody;
    if (e.t === undefined || e.u === undefined) return false;
    const day = e.d ?? (e.ts === undefined ? null : localDay('UTC', e.ts));
    if (day !== null) {
      if (e.m !== undefined) for (const lb of metricBoards(snapshot, e.m)) this.markBoard(e.t, e.u, lb, day);
      if (Array.isArray(e.pa)) this.markPoints(snapshot, e.t, e.u, e.pa, day);
      if (e.sx !== undefined) for (const lb of streakBoards(snapshot)) this.markBoard(e.t, e.u, lb, day);
    }
    return mayChange(kind, fields) && this.wanted.has(scopedTopic(e.t, userTopic(e.u)));
  }

  private markPoints(snapshot: Snapshot, tenant: string, userId: string, pa: EventAward[], day: string): void {
    if (pa.length === 0) return;
    const systems = new Set(pa.map(([systemId]) => systemId));
    for (const lb of pointsBoards(snapshot)) if (lb.pointsSystemId !== null && systems.has(lb.pointsSystemId)) this.markBoard(tenant, userId, lb, day);
  }

  private markBoard(tenant: string, userId: string, lb: Parameters<LiveBoards['mark']>[1], day: string): void {
    const run = runOf(lb, day);
    if (run !== null) this.boards.mark(tenant, lb, run, userId);
  }

  /** Stops reading and publishing, and gives the lease up. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wanted.stop();
    if (this.boardTimer !== null) clearInterval(this.boardTimer);
    // A blocking read ends within its BLOCK_MS.
    await Promise.race([this.loop, sleep(1500)]);
    await this.boardPass;
    await this.noting;
    if (this.holding) {
      const { redis, keys } = this.deps;
      if ((await redis.get(keys.live.lease).catch(() => null)) === this.id) await redis.del(keys.live.lease).catch(() => undefined);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
