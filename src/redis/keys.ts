/**
 * Every Redis key laurel uses is built here, and nowhere else.
 *
 * Cluster rule: a script touches keys of one hash slot only. A user's state and the event log of
 * the user's partition share the hash tag `{p<N>}`; configuration shares `{cfg}`.
 *
 *   <prefix>:{p<N>}:user:<tenant>:<uid>               hash: profile, attributes, totals, preferences
 *   <prefix>:{p<N>}:um:<metricId>:<tenant>:<uid>       hash: the user's data of one metric:
 *                                                        d:<local day> -> change of the metric that day
 *                                                        i:<idempotency key> -> first event id[:expiry ms]
 *   <prefix>:{p<N>}:users:<tenant>                     set: user ids of the partition
 *   <prefix>:{p<N>}:achc:<tenant>                      hash: achievement id -> completions in the partition
 *   <prefix>:{p<N>}:sh:<tenant>:<uid>                  hash: streak history, period -> length (not the
 *                                                        periods of the streak's run: lua/includes/streak.lua)
 *   <prefix>:{p<N>}:up:<tenant>:<uid>:<systemId>       hash: points change per local day (d:<day>)
 *                                                        and the last 100 awards (a:<n>); the
 *                                                        scripts get the base, up to the last ':',
 *                                                        and add the system (points.lua)
 *   <prefix>:{p<N>}:ptt:<tenant>:<systemId>            hash: uid -> the user's points total in the system, for
 *                                                        the summaries; written by the script that awards
 *                                                        (points.lua pointsCommit, recordEventPlan's fast path)
 *   <prefix>:{p<N>}:ptdue                              zset: '<tenant>|<user id>' -> when the user's
 *                                                        next time-trigger award is due (ms)
 *   <prefix>:{p<N>}:log                                stream: the partition's event log
 *   <prefix>:{p<N>}:ndue                               zset: the notifications activity calls for, not
 *                                                        yet made deliveries -> the earliest they can be
 *                                                        due (src/domain/notifications/due-members.ts)
 *   <prefix>:{p<N>}:pcdue, :pcw                        zset: '[tenant, user id, system id]' -> the end
 *                                                        of the window whose points.changed it waits for
 *                                                        (ms); hash: the same -> its latest entry's awards
 *                                                        (src/engine/webhooks/points-changed.ts)
 *   <prefix>:{dc}                                      string: the service's clock (ms) before which every
 *                                                        event's log entry has been drained (the same)
 *   <prefix>:{p<N>}:bq                                 stream: the partition's batch queue, one entry per
 *                                                        batch chunk not yet applied (src/domain/batches.ts)
 *   <prefix>:{p<N>}:bqn                                counter: the items in the batch queue
 *   <prefix>:{p<N>}:bql                                string: the worker that holds the batch queue (its
 *                                                        lease, lua/batchTake-2.lua)
 *   <prefix>:{bw}                                      set: the partitions whose batch queue may hold chunks
 *   <prefix>:{imports}                                 hash: import id -> '<tenant>|<earliest ms>', the imports whose runs are finalised again once applied
 *   <prefix>:{b:<batch id>}                            hash: a batch: n items, t tenant, at accepted (ms), x
 *                                                        when it is forgotten (wall ms), f:<index> -> why the
 *                                                        item failed
 *   <prefix>:{b:<batch id>}:d                          bitmap: the items processed (both expire at x)
 *   <prefix>:{st:<tenant>}:active|longest|expiry       zsets: streak rankings of a tenant (own slot)
 *   <prefix>:{st:<tenant>}:u                           hash: user id -> the user's members and lengths
 *                                                        there, and the log entry id last taken
 *                                                        (lua/streakRank-4.lua)
 *   <prefix>:{st:<tenant>}:pauses                      hash: pause id -> JSON {userId, start, end}
 *   <prefix>:{as:<tenant>}:v                           counter: moved after every new user and completion
 *                                                        of the tenant (src/engine/achievements/completion-stats.ts)
 *   <prefix>:{pv:<tenant>}:v                           counter: moved after every void that took points back
 *                                                        (src/engine/points/totals-version.ts)
 *   <prefix>:{lb:<tenant>:<board>:<run>[:g<hash>]}:r   zset: a leaderboard run's ranking (its own slot,
 *                                                        per breakdown group): value, member
 *                                                        '<order>|<user id>' (leaderboardRank.lua)
 *   <prefix>:{lb:<tenant>:<board>:<run>[:g<hash>]:s<n>}:r  a board's shard n (1 to shards - 1) of a run
 *                                                        (and group): a ranking of its own slot with the
 *                                                        run's keys below; shard 0 is the one above
 *                                                        (src/domain/leaderboards/shards.ts)
 *   <prefix>:{lb:<tenant>:<board>:<run>[:g<hash>]:s<n>.<k>}:r  shard n (0 to shards - 1) of a board
 *                                                        whose shards are spread over the slot space
 *                                                        (shardSlots, src/redis/shard-slots.ts)
 *   <prefix>:{lb:…}:m, :h:<uid>, :a:<uid>              hash user -> member; list: a user's rank history;
 *                                                        hash: a user's awards in a points board's run
 *   <prefix>:{lb:…}:x                                  zset user -> when the streak is lost (streak boards)
 *   <prefix>:{lb:…}:w                                  hash user -> '<rank>|<value>' as the webhooks last saw
 *                                                        them (src/engine/webhooks/rankings.ts)
 *   <prefix>:{lb:…}:lv                                 hash user -> '<rank>|<value>' as the live publisher
 *                                                        last published them (src/engine/live/boards.ts)
 *   <prefix>:{lb:…}:f                                  counter: values gone down and users gone (the
 *                                                        gate: src/engine/leaderboards/skip-below-threshold.ts)
 *   <prefix>:{lb:…}:q                                  hash user -> log entry id of the event whose
 *                                                        value a member holds (leaderboardRank.lua)
 *   <prefix>:{lb:…}:s                                  hash: the run's rank changes (entered, moved,
 *                                                        pushedOut; leaderboardRank.lua)
 *   <prefix>:{lb:<tenant>:<board>:<run>:c<tier>.<n>}:r  a league's cohort n of a tier in a run: a ranking
 *                                                        of its own (its own slot), with the run's keys
 *                                                        above (:m, :h:<uid>, :a:<uid>, :q ...)
 *   <prefix>:{lb:<tenant>:<board>:<run>:c<tier>.<n>}:o  hash: the cohort's outcome once its run is final:
 *                                                        u:<uid> -> '<p|d|s>|<rank>|<value>', n, p, d, s
 *                                                        (lua/leagueFinalise-2.lua)
 *   <prefix>:{lb:<tenant>:<board>:<run>:t<tier>}:c     hash: a league tier's cohorts in a run: o the open
 *                                                        cohort, n its users, u:<uid> -> the user's cohort
 *                                                        (lua/leagueJoin-1.lua)
 *   <prefix>:{lbf:<tenant>:<board>}:state, :groups:<run>  hash: runs finalised, their winners; set:
 *                                                        a run's breakdown groups (leaderboards worker)
 *   <prefix>:{wh:<tenant>}:lost                        zset: user id -> when the streak is lost (ms), while a
 *                                                        webhook subscribes to streak.lost (webhooks/plan.ts)
 *   <prefix>:{wh:<tenant>}:fzdue, :fz                  zset: user id -> when to check the user's freezes next (ms);
 *                                                        hash: what the last check saw (src/engine/webhooks/freezes.ts)
 *   <prefix>:{whq:<endpoint id>}:q                     stream: an endpoint's deliveries from the log waiting for
 *                                                        their first attempt (field d), consumer group 's' (the
 *                                                        senders' claims: src/engine/webhooks/queue.ts)
 *   <prefix>:{whq:<endpoint id>}:hw                    hash: partition -> the last log entry whose deliveries
 *                                                        the queue took (lua/webhookEnqueue-2.lua)
 *   <prefix>:{whq}                                     set: the endpoints that have a queue
 *   <prefix>:{cfg}:<kind>                              hash: id -> JSON of one configuration entity
 *   <prefix>:{cfg}:<kind>:unique                       hash: unique value -> id
 *   <prefix>:{cfg}:version, :clock(:seq), :bootstrap   configuration version, manual clock, first key
 *   <prefix>:{cfg}:restoring                           set while a restore runs (src/engine/durability/restore.ts)
 *   <prefix>:{cfg}:lost-data                           set by a process that found Redis back without the
 *                                                        installation it served (src/config/store.ts);
 *                                                        nothing is served until a restore deletes it
 *   <prefix>:{cfg}:apis                                hash: api process -> last heartbeat (liveness.ts)
 *   <prefix>:{cfg}:apis:config                         hash: api process -> configuration version it
 *                                                        has loaded (src/config/read-your-writes.ts)
 *   <prefix>:{cfg}:apis:clock                          hash: api process -> sequence of the manual clock's
 *                                                        setting it runs on (the same)
 *   <prefix>:{cfg}:signing                             the secret that signs the links of emails
 *                                                        (src/engine/notifications/links.ts)
 *   <prefix>:{lv:<tenant>:<hash>}:<topic>              a live topic's shard channel (src/engine/live/),
 *                                                        <topic> escaped as a user id, <hash> its FNV-1a
 *   <prefix>:{lv:…}:<topic>:s, :h, :w                  string: its last sequence number; list: its latest
 *                                                        messages (lua/livePublish-2.lua); string: wanted
 *                                                        by an api process's sockets (lua/liveJoin-3.lua)
 *   <prefix>:{lv:…}:<topic>:o:<event id>               string: a clock event published on the topic
 *                                                        (src/engine/live/clock.ts), kept for a day
 *   <prefix>:{live}:pos, :lease, :holds                hash: partition -> the log entry the live publisher
 *                                                        read up to; string: the worker that publishes;
 *                                                        zset: '<api process>|<tenant>|<topic>' -> until
 *                                                        when that process holds the topic (src/engine/live/interest.ts)
 *   <prefix>:{k:<key id>}                              hash: a key scoped to one user (src/engine/keys/user-keys.ts):
 *                                                        h sha256 of the key, u user id, t tenant, c created
 *   <prefix>:{er:<erasure id>}                         hash: a user's erasure (src/engine/erasure/erase.ts): t tenant,
 *                                                        s status, counts; u the user id and e the log entry
 *                                                        only while it is pending; w:<pass id> the time each
 *                                                        workers' pass on it began (src/redis/scripts/erasurePasses.ts);
 *                                                        a deleted tenant's (src/engine/erasure/tenant.ts): t the
 *                                                        default tenant, d the tenant, e its log entries' ids
 *   <prefix>:{er}                                      set: the erasures pending (the workers' work list)
 *   <prefix>:{au}:q                                    stream: the audit log's entries not yet in Postgres,
 *                                                        field e the entry's JSON (src/redis/audit.ts)
 *   <prefix>:{k:<key id>}:rl                           string: when the key's next request is due at its
 *                                                        rate limit, ms (lua/includes/gcra.lua); its own slot
 *                                                        per API key, named by the key's id, never the key
 *
 * recordEventPlan gets a user's hash, the user-metric hash, the slot (`<prefix>:{p<N>}:`) and the
 * partition's log, and builds the other keys of the user's partition from the slot as forUser names
 * them, each only when the event writes it (lua/recordEventPlan-4.lua): a key in KEYS costs every
 * event, written or not; the tests read them back through this module.
 *
 * `<uid>` is the user id with `%` and `:` percent-escaped, so the parts of a key never run together.
 * `<tenant>` is `_` for the default tenant and the tenant's uuid otherwise.
 */

import { BoundedMap } from '../lib/memo.js';
import { spreadSuffix } from './shard-slots.js';
import type { ConfigKind } from '../model/entities.js';

export const DEFAULT_TENANT = '_';

/** A live topic's keys (Keys.liveTopic). */
export interface LiveTopicKeys {
  channel: string;
  seq: string;
  history: string;
  want: string;
}

/** 32-bit FNV-1a over the UTF-16 code units of a string, continued from `h`. */
export function fnv1a(s: string, h: number): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function escapeId(id: string): string {
  if (id.indexOf(':') < 0 && id.indexOf('%') < 0) return id;
  return id.replace(/%/g, '%25').replace(/:/g, '%3A');
}

/** A user id from its part of a key's name (escapeId undone). */
export function unescapeId(part: string): string {
  if (part.indexOf('%') < 0) return part;
  return part.replace(/%(25|3A)/g, (_, code: string) => (code === '25' ? '%' : ':'));
}

/** The keys of one user: what a phase-1 script receives. */
export interface UserKeys {
  partition: number;
  /** `<prefix>:{p<N>}:` */
  slot: string;
  /** `<tenant>:<uid>` */
  scope: string;
  user: string;
  users: string;
  log: string;
  /** Achievement completion counters of the user's partition and tenant. */
  completions: string;
  /** The user's streak history. */
  history: string;
  /** The base of the user's points keys: `<slot>up:<tenant>:<uid>:` + system id. */
  points: string;
  /** The partition's due set of time triggers. */
  due: string;
  /** The partition's due set of anniversaries. */
  anniversaries: string;
}

/**
 * UserKeys, each key but the user hash made when first read: the event path reads four of them
 * (recordEventPlan builds the others from the slot), so it does not pay for the other five.
 */
class LazyUserKeys implements UserKeys {
  constructor(
    readonly partition: number, readonly slot: string, readonly scope: string, private readonly tenant: string,
    readonly user: string,
  ) {}

  get users(): string { return `${this.slot}users:${this.tenant}`; }
  get log(): string { return `${this.slot}log`; }
  get completions(): string { return `${this.slot}achc:${this.tenant}`; }
  get history(): string { return `${this.slot}sh:${this.scope}`; }
  get points(): string { return `${this.slot}up:${this.scope}:`; }
  get due(): string { return `${this.slot}ptdue`; }
  get anniversaries(): string { return `${this.slot}anndue`; }
}

/** A leaderboard run's keys (Keys.leaderboard). */
export interface LeaderboardKeys {
  ranking: string;
  members: string;
  expiry: string;
  falls: string;
  /** hash user -> the log entry id of the event whose value the member holds (lua/leaderboardRank-8.lua) */
  sequences: string;
  /** hash user -> '<rank>|<value>' as `leaderboard.rank_changed` last saw it (src/engine/webhooks/rankings.ts) */
  reported: string;
  /** hash user -> '<rank>|<value>' as the live publisher last published them (src/engine/live/boards.ts) */
  live: string;
  /** hash: the run's rank changes, counted as it moves (lua/leaderboardRank-8.lua) */
  stats: string;
  history(userId: string): string;
  awards(userId: string): string;
}

/**
 * A tenant's streak rankings (lua/streakRank-4.lua): members '<order>|<user id>'; the standing hash
 * keeps each user's members and lengths, and the log entry id last taken.
 */
export interface StreakRankingKeys {
  active: string;
  longest: string;
  expiry: string;
  pauses: string;
  standing: string;
}

/** A leaderboard run's keys from their common part, `<prefix>:{lb:<tag>}:`. */
function runKeys(base: string): LeaderboardKeys {
  return {
    ranking: base + 'r', members: base + 'm', expiry: base + 'x', falls: base + 'f', sequences: base + 'q', reported: base + 'w', live: base + 'lv', stats: base + 's',
    history: (userId) => `${base}h:${escapeId(userId)}`, awards: (userId) => `${base}a:${escapeId(userId)}`,
  };
}

/** A glob pattern matching `s` literally. */
export function globEscaped(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

export class Keys {
  readonly prefix: string;
  readonly partitions: number;
  private readonly slots: string[];
  /** Leaderboard keys made so far, by tenant, board, run and group. */
  private readonly boards = new Map<string, Map<string, BoundedMap<string, BoundedMap<string, LeaderboardKeys>>>>();

  constructor(prefix: string, partitions: number) {
    this.prefix = prefix;
    this.partitions = partitions;
    this.slots = Array.from({ length: partitions }, (_, i) => `${prefix}:{p${i}}:`);
  }

  partitionOf(tenant: string, userId: string): number {
    return fnv1a(userId, fnv1a(tenant, 0x811c9dc5) ^ 0x1f) % this.partitions;
  }

  forUser(tenant: string, userId: string): UserKeys {
    const partition = this.partitionOf(tenant, userId);
    const slot = this.slots[partition];
    const scope = `${tenant}:${escapeId(userId)}`;
    return new LazyUserKeys(partition, slot, scope, tenant, `${slot}user:${scope}`);
  }

  /** The user's hash of one metric: day buckets and idempotency keys (one key, one KEYS slot). */
  userMetric(u: UserKeys, metricId: string): string {
    return `${u.slot}um:${metricId}:${u.scope}`;
  }

  /** The user's points of one system: day buckets and the recent awards (one hash). */
  userPoints(u: UserKeys, systemId: string): { days: string } {
    return { days: u.points + systemId };
  }

  partitionDue(partition: number): string {
    return `${this.slots[partition]}ptdue`;
  }

  /**
   * The partition's due set of anniversaries: `<tenant>|<user id>` → when the workers look at the
   * user's next anniversary (ms; src/engine/achievements/anniversaries.ts).
   */
  partitionAnniversaries(partition: number): string {
    return `${this.slots[partition]}anndue`;
  }

  /** The partition's due index of reminders, reactivations and recaps (src/domain/notifications/due-members.ts). */
  partitionNotificationsDue(partition: number): string {
    return `${this.slots[partition]}ndue`;
  }

  /**
   * The partition's `points.changed` windows, kept while an endpoint subscribes
   * (src/engine/webhooks/points-changed.ts): when each (tenant, user, system) is due (the end of its
   * window), and the latest entry noted for it.
   */
  partitionPointsChanged(partition: number): { latest: string; due: string } {
    return { latest: `${this.slots[partition]}pcw`, due: `${this.slots[partition]}pcdue` };
  }

  /**
   * The service's clock (ms) before which every event's log entry has been drained and so noted
   * (src/engine/webhooks/points-changed.ts): the windows that ended before it are complete.
   */
  get drainedClock(): string {
    return `${this.prefix}:{dc}`;
  }

  partitionLog(partition: number): string {
    return `${this.slots[partition]}log`;
  }

  /** The id of the last entry of the partition's log that the log drainer has copied to Postgres. */
  partitionLogCursor(partition: number): string {
    return `${this.slots[partition]}logc`;
  }

  /**
   * The partition's batch queue (src/domain/batches.ts): the stream of chunks not yet applied, the
   * number of items in it, and the lease of the worker taking it.
   */
  partitionBatches(partition: number): { queue: string; count: string; lease: string } {
    const slot = this.slots[partition];
    return { queue: `${slot}bq`, count: `${slot}bqn`, lease: `${slot}bql` };
  }

  /**
   * The partition's erasure fences: the user hash's name of each user erased while batch chunks
   * were queued -> the last chunk's id then (lua/includes/fence.lua), until the erasure is done.
   */
  partitionFences(partition: number): string {
    return `${this.slots[partition]}fences`;
  }

  /** The partitions whose batch queue may hold chunks (a set of partition numbers). */
  get batchWork(): string {
    return `${this.prefix}:{bw}`;
  }

  /**
   * The history imports whose runs are finalised again once they are applied
   * (src/engine/batches/import-runs.ts): import id -> '<tenant>|<its earliest occurredAt, ms>'.
   */
  get importsToFinalise(): string {
    return `${this.prefix}:{imports}`;
  }

  /** A batch's progress, in the batch's own slot: its record (with the items failed) and the items processed (bits). */
  batch(batchId: string): { record: string; done: string } {
    const base = `${this.prefix}:{b:${batchId}}`;
    return { record: base, done: `${base}:d` };
  }

  partitionUsers(partition: number, tenant: string): string {
    return `${this.slots[partition]}users:${tenant}`;
  }

  partitionCompletions(partition: number, tenant: string): string {
    return `${this.slots[partition]}achc:${tenant}`;
  }

  /**
   * The version of a tenant's achievement statistics (the partitions' user sets and completion
   * counters): a counter moved after every change to them, on a slot of its own.
   */
  achievementStatsVersion(tenant: string): string {
    return `${this.prefix}:{as:${tenant}}:v`;
  }

  /**
   * When each user's streak is lost if nothing extends it (user -> ms), kept by the log drain while a
   * webhook endpoint subscribes to `streak.lost` (src/engine/webhooks/plan.ts): its due index.
   */
  streakLosses(tenant: string): string {
    return `${this.prefix}:{wh:${tenant}}:lost`;
  }

  /**
   * The freeze checks of a tenant's users, while an endpoint subscribes to the freeze events
   * (src/engine/webhooks/freezes.ts): when each user is checked next (user -> ms), and what the last
   * check saw (user -> '<last period>|<freezes left>|<periods bridged>').
   */
  streakFreezes(tenant: string): { due: string; seen: string } {
    return { due: `${this.prefix}:{wh:${tenant}}:fzdue`, seen: `${this.prefix}:{wh:${tenant}}:fz` };
  }

  /**
   * An endpoint's queue (src/engine/webhooks/queue.ts), on a slot of its own: the deliveries the
   * log calls for, waiting for their first attempt (a stream, claimed through its consumer group),
   * and the marks of the log entries it took (partition -> the last entry's sortable id).
   */
  webhookQueue(endpointId: string): { queue: string; marks: string } {
    return { queue: `${this.prefix}:{whq:${endpointId}}:q`, marks: `${this.prefix}:{whq:${endpointId}}:hw` };
  }

  /** The endpoints that have a queue (deleted endpoints' queues are found and dropped from it). */
  get webhookQueues(): string {
    return `${this.prefix}:{whq}`;
  }

  /**
   * The users active on a UTC day (YYYY-MM-DD) of a tenant, a HyperLogLog (src/engine/analytics/active-users.ts):
   * one hash slot per tenant, so that a range's days are counted together.
   */
  activeUsers(tenant: string, day: string): string {
    return `${this.prefix}:{an:${tenant}}:active:${day}`;
  }

  /**
   * The days of a tenant whose active users' sketch changed since the last snapshot copied them
   * (src/engine/analytics/sketches.ts): a set of YYYY-MM-DD, in the sketches' slot.
   */
  activeUsersChanged(tenant: string): string {
    return `${this.prefix}:{an:${tenant}}:changed`;
  }

  /** The pattern of every tenant's active users' sketches (SCAN). */
  get activeUsersPattern(): string {
    return `${this.prefix}:{an:*}:active:*`;
  }

  /** A tenant's streak rankings: one hash slot per tenant, apart from the users'. */
  streakRankings(tenant: string): StreakRankingKeys {
    const base = `${this.prefix}:{st:${tenant}}:`;
    return {
      active: base + 'active', longest: base + 'longest', expiry: base + 'expiry', pauses: base + 'pauses', standing: base + 'u',
    };
  }

  /**
   * A leaderboard run's keys (one hash slot per board, run, breakdown group and shard): the
   * ranking, the users' members, and a user's history. `group` is '' without breakdown
   * attributes; `shard` 0 is the run's first (and a board without shards' only) ranking, named
   * without a shard. `spread`: the board's shard count when its shards are spread over the slot
   * space (src/redis/shard-slots.ts: every shard's tag ends in `:s<n>.<k>`, shard 0's too); 0 for
   * the layout where a shard past the first ends in `:s<n>`.
   */
  leaderboard(tenant: string, boardId: string, run: string, group: string, shard = 0, spread = 0): LeaderboardKeys {
    // Made once per run and group, and found again through the parts themselves (strings the
    // configuration and the caches hold, hashed once): the event path looks rankings up by name on
    // every event, and a name made anew is a string to flatten and hash each time.
    let byBoard = this.boards.get(tenant);
    if (byBoard === undefined) this.boards.set(tenant, (byBoard = new Map()));
    let byRun = byBoard.get(boardId);
    if (byRun === undefined) byBoard.set(boardId, (byRun = new BoundedMap(8)));
    let byGroup = byRun.get(run);
    // Runs come and go (a daily board has one a day): a board keeps its latest few.
    if (byGroup === undefined) byRun.set(run, (byGroup = new BoundedMap(1000)));
    // A shard is a ranking of its own, on its own slot: its tag ends in `:s<n>` (past the first), or
    // in `:s<n>.<k>` spread over the slot space, found once here.
    const id = shard === 0 && spread === 0 ? group : `${group}\u0000${shard}\u0000${spread}`;
    let made = byGroup.get(id);
    if (made === undefined) {
      const tag = group === '' ? `${tenant}:${boardId}:${run}` : `${tenant}:${boardId}:${run}:g${fnv1a(group, 0x811c9dc5).toString(16)}`;
      const head = `${this.prefix}:{lb:${tag}`;
      const suffix = spread > 1 ? spreadSuffix((s) => `${head}${s}}`, shard, spread) : shard === 0 ? '' : `:s${shard}`;
      made = runKeys(`${head}${suffix}}:`);
      byGroup.set(id, made);
    }
    return made;
  }

  /**
   * A league cohort's ranking in a run (lua/leaderboardRank-8.lua), on a slot of its own: `n` from
   * 0; with its outcome once the run is final (lua/leagueFinalise-2.lua), on the same slot.
   */
  leagueCohort(tenant: string, boardId: string, run: string, tier: number, n: number): LeaderboardKeys & { outcome: string } {
    const base = `${this.prefix}:{lb:${tenant}:${boardId}:${run}:c${tier}.${n}}:`;
    return { ...runKeys(base), outcome: base + 'o' };
  }

  /** A league tier's cohorts in a run (lua/leagueJoin-1.lua), on a slot of its own. */
  leagueTier(tenant: string, boardId: string, run: string, tier: number): string {
    return `${this.prefix}:{lb:${tenant}:${boardId}:${run}:t${tier}}:c`;
  }

  /** A run's (and group's) keys from the name of its members hash, or null when `key` is not one. */
  runOfMembers(key: string): LeaderboardKeys | null {
    if (!key.startsWith(`${this.prefix}:{lb:`) || !key.endsWith('}:m')) return null;
    return runKeys(key.slice(0, -1));
  }

  /**
   * The keys of a ranking (a run, group, shard or cohort of a tenant's board) that holds `key`, any
   * of its keys (its ranking, members, sequences, a user's history or awards); null when `key` is
   * none of a tenant's board's.
   */
  rankingOfKey(key: string): LeaderboardKeys | null {
    const head = `${this.prefix}:{lb:`;
    if (!key.startsWith(head)) return null;
    const close = key.indexOf('}:', head.length);
    return close < 0 ? null : runKeys(key.slice(0, close + 2));
  }

  /** The scan pattern of every key of a tenant's boards' rankings (runs, groups, shards, cohorts, league tiers). */
  boardKeysOfTenant(tenant: string): string {
    return `${this.prefix}:{lb:${globEscaped(tenant)}:*}:*`;
  }

  /** The scan pattern of the members hashes of every ranking of a tenant's boards (runs, groups, shards, cohorts). */
  rankingsOfTenant(tenant: string): string {
    return `${this.prefix}:{lb:${globEscaped(tenant)}:*}:m`;
  }

  /** The board and run of a ranking of `tenant`, from the name of its members hash; null when `key` is not one. */
  boardRunOfMembers(key: string, tenant: string): { boardId: string; run: string } | null {
    const head = `${this.prefix}:{lb:${tenant}:`;
    if (!key.startsWith(head) || !key.endsWith('}:m')) return null;
    const colon = key.indexOf(':', head.length);
    if (colon < 0) return null;
    // A run is named by its first day (YYYY-MM-DD).
    return { boardId: key.slice(head.length, colon), run: key.slice(colon + 1, colon + 11) };
  }

  /**
   * What the workers keep of a board's runs, per tenant (one slot per board): the state hash
   * (`f:<run>` finalised at, `w:<run>:<group>` winners, `last` the last run finalised) and the
   * breakdown groups each run has (a set per run), and the users whose entries may have moved them
   * on an uncapped run, for `leaderboard.rank_changed` (a sorted set per run: user -> their latest
   * entry's time, src/engine/webhooks/rank-notes.ts).
   */
  leaderboardIndex(tenant: string, boardId: string): { state: string; groups(run: string): string; noted(run: string): string } {
    const base = `${this.prefix}:{lbf:${tenant}:${boardId}}:`;
    return { state: base + 'state', groups: (run) => `${base}groups:${run}`, noted: (run) => `${base}rn:${run}` };
  }

  /**
   * The points totals of one system of a tenant's users in a partition (uid, escaped as in the
   * user's keys, -> total): the awarding script writes it with the user's total, in the user's slot.
   */
  partitionPointsTotals(partition: number, tenant: string, systemId: string): string {
    return `${this.slots[partition]}ptt:${tenant}:${systemId}`;
  }

  /**
   * The version of a tenant's points totals as the filtered points summaries cache them: a counter
   * moved after every void that took points back, on a slot of its own.
   */
  pointsTotalsVersion(tenant: string): string {
    return `${this.prefix}:{pv:${tenant}}:v`;
  }

  /** Where a user's total of one system is in the partition's points totals: the hash, and the user's field. */
  partitionPointsTotal(tenant: string, userId: string, systemId: string): { key: string; field: string } {
    return { key: this.partitionPointsTotals(this.partitionOf(tenant, userId), tenant, systemId), field: escapeId(userId) };
  }

  /** The tenant's partition points totals of one system, every partition (a summary reads them all). */
  pointsTotalsOfTenant(tenant: string, systemId: string): string[] {
    return this.slots.map((slot) => `${slot}ptt:${tenant}:${systemId}`);
  }

  /** A live topic's shard channel (the name its sequence, history and want marker start with). */
  liveTopic(tenant: string, topic: string): LiveTopicKeys {
    const channel = `${this.prefix}:{lv:${tenant}:${fnv1a(topic, 0x811c9dc5).toString(16)}}:${escapeId(topic)}`;
    return { channel, seq: `${channel}:s`, history: `${channel}:h`, want: `${channel}:w` };
  }

  /** Marks a clock event (its webhook id) published on a live topic (src/engine/live/clock.ts). */
  liveOnce(tenant: string, topic: string, eventId: string): string {
    return `${this.liveTopic(tenant, topic).channel}:o:${eventId}`;
  }

  /**
   * The live publisher's own keys (one slot): where it read each partition's log up to, the lease
   * of the worker that publishes, the topics wanted, the pub/sub channel on which the api
   * processes name the topics they take up, and the one on which an erasure tells them to drop an
   * erased user's topics (src/engine/live/fanout.ts drop).
   */
  get live(): { positions: string; lease: string; wanted: string; interest: string; dropped: string } {
    const base = `${this.prefix}:{live}:`;
    return { positions: base + 'pos', lease: base + 'lease', wanted: base + 'holds', interest: base + 'interest', dropped: base + 'drop' };
  }

  config(kind: ConfigKind): string {
    return `${this.prefix}:{cfg}:${kind}`;
  }

  configUnique(kind: ConfigKind): string {
    return `${this.prefix}:{cfg}:${kind}:unique`;
  }

  get configVersion(): string {
    return `${this.prefix}:{cfg}:version`;
  }

  get clock(): string {
    return `${this.prefix}:{cfg}:clock`;
  }

  get clockSeq(): string {
    return `${this.prefix}:{cfg}:clock:seq`;
  }

  /** api process id -> '<wall ms of its last heartbeat>' or 'stopped:<ms>' (src/engine/durability/liveness.ts). */
  get apiProcesses(): string {
    return `${this.prefix}:{cfg}:apis`;
  }

  /** api process id -> the configuration version it has loaded (src/config/read-your-writes.ts). */
  get apiConfigVersions(): string {
    return `${this.prefix}:{cfg}:apis:config`;
  }

  /** api process id -> the sequence of the manual clock's setting it runs on (src/config/read-your-writes.ts). */
  get apiClockSettings(): string {
    return `${this.prefix}:{cfg}:apis:clock`;
  }

  /** The dead api processes whose events the log drainer placed again: id -> the heartbeat it saw last. */
  get apiReplayed(): string {
    return `${this.prefix}:{cfg}:apis:replayed`;
  }

  /** The secret that signs the links of emails, made once by the first process that needs it. */
  get signingSecret(): string {
    return `${this.prefix}:{cfg}:signing`;
  }

  /**
   * What one API key has in Redis, in one slot: the record of a key scoped to a user (the other keys
   * are configuration) and the key's rate-limit bucket, named by the key's id (never the key).
   */
  apiKey(id: string): { record: string; bucket: string } {
    const base = `${this.prefix}:{k:${id}}`;
    return { record: base, bucket: `${base}:rl` };
  }

  /** The scan pattern of the keys' records and buckets (userKeyIdOf tells the records). */
  get userKeyRecords(): string {
    return `${this.prefix}:{k:*}`;
  }

  /** The id of the key whose record `name` is, or null when it is none (a bucket, another key). */
  userKeyIdOf(name: string): string | null {
    const head = `${this.prefix}:{k:`;
    return name.startsWith(head) && name.endsWith('}') ? name.slice(head.length, -1) : null;
  }

  /** A user's erasure (src/engine/erasure/erase.ts), on a slot of its own. */
  erasure(id: string): string {
    return `${this.prefix}:{er:${id}}`;
  }

  /** The erasures the workers have yet to finish. */
  get erasuresPending(): string {
    return `${this.prefix}:{er}`;
  }

  /**
   * The lease a pass holds while it reads the boards' rankings into what it writes of finished runs
   * (a finalisation's winners) or takes users off them (an erasure's): one at a time
   * (src/engine/leaderboards/rankings-lease.ts).
   */
  get rankingsLease(): string {
    return `${this.prefix}:{er}:rankings-lease`;
  }

  /** The audit log's entries on their way to Postgres (src/redis/audit.ts). */
  get auditQueue(): string {
    return `${this.prefix}:{au}:q`;
  }

  get bootstrap(): string {
    return `${this.prefix}:{cfg}:bootstrap`;
  }

  /** Set while `laurel restore` rebuilds Redis: the api answers 503 meanwhile. */
  get restoring(): string {
    return `${this.prefix}:{cfg}:restoring`;
  }

  get lostData(): string {
    return `${this.prefix}:{cfg}:lost-data`;
  }

  /** Pub/sub channel announcing configuration and clock changes. */
  get channel(): string {
    return `${this.prefix}:changes`;
  }

  /** BullMQ prefix: queues get their own hash tags, under laurel's prefix. */
  get queuePrefix(): string {
    return `${this.prefix}:{q}`;
  }
}
