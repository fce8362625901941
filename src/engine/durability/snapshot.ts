/**
 * Snapshots of Redis into Postgres (src/postgres/snapshots.ts), taken without stopping the api:
 * - the users: every user the first time (a full snapshot), afterwards only those the event log
 *   archived since the snapshot before began (incremental). A user's keys and the position of the
 *   partition's log are read in one transaction of the partition's slot, so a restore knows exactly
 *   which entries of the log a user's state includes;
 * - then the keys that are not a user's (leaderboards, streak rankings, the keys scoped to a
 *   user, the notifications due indexes, the batch queues), the keys of each hash slot DUMPed in
 *   one transaction (readSlot), each written again only when its digest changed;
 * - the active users' sketches of the days the drain changed since the last snapshot (all of them
 *   on a full one: src/engine/analytics/sketches.ts), each written again only when its digest changed;
 * - last the batches' progress (src/engine/durability/batches-from-log.ts), after the queues: a
 *   chunk the queues no longer held when they were read had its progress noted before.
 * The keys that sum over users (a partition's users, completion counters and points totals, the
 * due set of time triggers) are not taken: a restore works them out from the users.
 *
 * A snapshot that fails (Redis or Postgres failing it part-way) is marked failed in its row; one
 * whose process died is marked so by the next snapshot, or by a workers process starting, either
 * once it holds the installation's snapshot lock (no snapshot runs then). The readers of the
 * latest snapshot (a restore, the next incremental snapshot, `laurel_snapshot_age_seconds`) leave
 * failed ones out.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { LeaderboardKeys } from '../../redis/keys.js';
import { userBatches } from '../../redis/users.js';
import { SnapshotStore, type KeyState, type SnapshotRecord, type UserState } from '../../postgres/snapshots.js';
import { postgresHoldsData } from '../../postgres/installation-data.js';
import type { Context } from '../context.js';
import { isSketch, readSketches } from '../analytics/sketches.js';
import { keysOfPatterns } from './snapshot-walks.js';
import { readRunByMembers, runUsers, userOfKey } from '../../redis/run-members.js';
import type { SpillSet } from '../../lib/spill-set.js';
import { LaurelError } from '../../lib/errors.js';

/** A snapshot refused: Redis does not hold the installation (a snapshot of it would replace what Postgres keeps). */
export class SnapshotError extends LaurelError {
  constructor(message: string) { super('snapshot_refused', message); }
}

export interface SnapshotResult {
  id: number;
  full: boolean;
  /** Users written (all of them, or those that changed). */
  users: number;
  /** Other keys read, and how many of them changed (were written). */
  keys: number;
  written: number;
  ms: number;
  /** Snapshots found unfinished and marked failed first (left by a process that died). */
  interrupted: number[];
}

/**
 * The patterns of the keys that are not a user's (src/redis/keys.ts): with the user-scoped API
 * keys' records (`{k:<id>}`, ending with the brace), not their rate-limit buckets; the
 * partitions' notifications due indexes; the webhooks' indexes of losses and freeze checks, the
 * partitions' points.changed windows, the webhooks' queues of deliveries waiting for their first
 * attempt, the partitions' batch queues (read after the users:
 * src/engine/durability/batches-from-log.ts), and the history imports whose runs are still to be
 * finalised again (src/engine/batches/import-runs.ts).
 */
export function sharedKeyPatterns(prefix: string): string[] {
  return [
    `${prefix}:{st:*`, `${prefix}:{lb:*`, `${prefix}:{lbf:*`, `${prefix}:{k:*}`, `${prefix}:{p*}:ndue`, `${prefix}:{wh:*`,
    `${prefix}:{p*}:pcdue`, `${prefix}:{p*}:pcw`, `${prefix}:{p*}:bq`, `${prefix}:{whq:*`, `${prefix}:{whq}`, `${prefix}:{imports}`,
  ];
}

/** The last id a partition's log ever had ('' for none): XINFO's last-generated-id. */
function lastGeneratedId(info: unknown): string {
  if (!Array.isArray(info)) return '';
  const i = info.indexOf('last-generated-id');
  return i >= 0 ? String(info[i + 1]) : '';
}

/**
 * The user's keys and the partition log's last id, read in one transaction. The user's keys are
 * the user hash, the streak history, and one hash per metric and per points system (those that
 * exist).
 */
async function readUser(deps: Pick<Context, 'redis' | 'keys' | 'store'>, tenant: string, userId: string): Promise<UserState | null> {
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  const u = keys.forUser(tenant, userId);
  const names = [u.user, u.history, ...[...snapshot.metrics.keys()].map((m) => keys.userMetric(u, m)),
    ...[...snapshot.pointsSystems.keys()].map((s) => u.points + s)];
  const multi = redis.multi();
  for (const name of names) multi.dumpBuffer(name);
  multi.call('XINFO', 'STREAM', u.log);
  const results = (await multi.exec()) ?? [];
  const dumps = new Map<string, Buffer>();
  names.forEach((name, i) => {
    const [err, dump] = results[i];
    if (err) throw err;
    if (dump !== null) dumps.set(name, dump as Buffer);
  });
  if (!dumps.has(u.user)) return null;
  const [, info] = results[names.length];
  return { tenant, userId, partition: u.partition, position: lastGeneratedId(info), keys: dumps };
}

/** The hash tag of a key, which names its slot: the text between its first '{' and the '}' after it. */
function tagOf(key: string): string {
  const open = key.indexOf('{');
  return key.slice(open + 1, key.indexOf('}', open + 1));
}

/** The batches' progress (lua/batchProgress-2.lua), read after every other key. */
export function batchKeyPatterns(prefix: string): string[] {
  return [`${prefix}:{b:*`];
}

/** The keys a walk found (src/engine/durability/snapshot-walks.ts), and the large runs among them. */
interface Walked {
  /** The keys by hash tag (one slot each); a large run's without its users' history and awards keys. */
  slots: Map<string, Set<string>>;
  /**
   * The runs read member by member (memberwiseRun), by hash tag, with the users of the history and
   * awards keys found, kept on disk as the walk goes (src/redis/run-members.ts runUsers): a run of
   * a hundred million holds as many of those keys, which this process never holds at once.
   */
  large: Map<string, { run: LeaderboardKeys; users: SpillSet }>;
}

/** Ends a walk's spills of users (their files removed). */
async function closeWalked(walked: Walked): Promise<void> {
  for (const { users } of walked.large.values()) await users.close();
}

/** The keys of `patterns`, by hash tag, the users of the large runs set apart as they are found. */
async function walk(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'settings'>, patterns: string[]): Promise<Walked> {
  const walked: Walked = { slots: new Map(), large: new Map() };
  const { slots, large } = walked;
  // The slots past the threshold that are read whole all the same (a capped board's run, a league's):
  // their board looked up once, not once a key.
  const whole = new Set<string>();
  try {
    for await (const batch of keysOfPatterns(deps.redis, deps.settings.prefix, patterns)) {
      const found = new Map<SpillSet, string[]>();
      const spill = (users: SpillSet, userId: string) => {
        const list = found.get(users);
        if (list === undefined) found.set(users, [userId]);
        else list.push(userId);
      };
      for (const key of batch) {
        const tag = tagOf(key);
        const run = large.get(tag);
        const userId = run === undefined ? null : userOfKey(run.run, key);
        if (run !== undefined && userId !== null) {
          spill(run.users, userId);
          continue;
        }
        let names = slots.get(tag);
        if (names === undefined) slots.set(tag, (names = new Set()));
        names.add(key);
        if (run !== undefined || names.size <= deps.settings.snapshotRunKeys || whole.has(tag)) continue;
        // Past the threshold: the run's users from now on on disk, those found so far moved there.
        const members = memberwiseRun(deps, tag);
        if (members === null) {
          whole.add(tag);
          continue;
        }
        const users = await runUsers();
        large.set(tag, { run: members, users });
        for (const name of names) {
          const user = userOfKey(members, name);
          if (user === null) continue;
          spill(users, user);
          names.delete(name);
        }
      }
      for (const [users, ids] of found) await users.add(ids);
    }
  } catch (err) {
    await closeWalked(walked);
    throw err;
  }
  return walked;
}

/** The slots' keys, a few slots at a time: about `size` keys a batch (a slot whole, however many it has). */
function* slotBatches(slots: Map<string, Set<string>>, size = 500): Generator<Set<string>[]> {
  let batch: Set<string>[] = [];
  let keys = 0;
  for (const names of slots.values()) {
    batch.push(names);
    keys += names.size;
    if (keys >= size) {
      yield batch;
      batch = [];
      keys = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * The keys of one hash slot, read in one transaction (DUMP payloads; a key gone meanwhile is left
 * out). A script writes several keys of a slot at once: a placement a run's ranking, members,
 * sequences and the user's history; a prune or an extension the streak rankings' lengths,
 * expiries and standing. Read apart, a write landing between two reads left a snapshot holding half
 * of it: a ranking and sequences with a placement whose history entry is missing (the restore's
 * replay of that entry then changes nothing, and the entry is lost), an active streak its expiries
 * no longer name (never pruned again). A run's members are read in the same transaction: the keys of
 * one who entered since SCAN listed them (a history, perhaps awards) are read again with the rest.
 */
async function readSlot(deps: Pick<Context, 'redis' | 'keys'>, names: Set<string>): Promise<Map<string, Buffer>> {
  const { redis, keys } = deps;
  for (;;) {
    const list = [...names];
    const runs = list.map((k) => keys.runOfMembers(k)).filter((r): r is LeaderboardKeys => r !== null);
    const multi = redis.multi();
    for (const name of list) multi.dumpBuffer(name);
    for (const run of runs) multi.hkeys(run.members);
    const results = (await multi.exec()) ?? [];
    for (const [err] of results) if (err) throw err;
    // A member has a history (entering writes it): one missing from the list entered since.
    let entered = false;
    runs.forEach((run, i) => {
      for (const userId of results[list.length + i][1] as string[]) {
        if (names.has(run.history(userId))) continue;
        names.add(run.history(userId));
        names.add(run.awards(userId));
        entered = true;
      }
    });
    if (entered) continue;
    const dumps = new Map<string, Buffer>();
    list.forEach((name, i) => {
      const dump = results[i][1];
      if (dump !== null) dumps.set(name, dump as Buffer);
    });
    return dumps;
  }
}

/**
 * The run whose slot is `tag`, when it is read member by member once its slot holds more than
 * `LAUREL_SNAPSHOT_RUN_KEYS` keys (src/redis/run-members.ts): a run of an uncapped board without
 * a league. Null: DUMPed whole (readSlot). A capped board's placement may push another user out,
 * writing two users' keys at once; a run of a board no longer configured is not known to be
 * uncapped.
 */
function memberwiseRun(deps: Pick<Context, 'keys' | 'store'>, tag: string): LeaderboardKeys | null {
  if (!tag.startsWith('lb:')) return null;
  const board = deps.store.current.leaderboards.get(tag.split(':')[2] ?? '');
  if (board === undefined || board.maxParticipants !== null || board.league) return null;
  return deps.keys.runOfMembers(`${deps.keys.prefix}:{${tag}}:m`);
}

/**
 * How far before the last snapshot began an incremental one looks for users the log changed. An
 * entry's `drained_at` is when its drain transaction began, not when it committed: a transaction
 * open while the last snapshot began (the drain commits several a second, each open for
 * milliseconds) was not seen by it, and its rows are dated before it, so without the overlap
 * neither snapshot took their users, and a restore from a later one, which replays the log from the
 * snapshot before it on, lost their entries. A minute covers such a transaction, and node's and
 * Postgres's clocks differing a little; it takes again the users of that minute (at the default
 * interval of 5 minutes, about a fifth more).
 */
const OVERLAP_MS = 60_000;

/** The users named by the log entries archived since `since` (ms), by tenant. */
async function changedUsers(pool: pg.Pool, prefix: string, since: number): Promise<Map<string, Set<string>>> {
  const byTenant = new Map<string, Set<string>>();
  const { rows } = await pool.query(
    `SELECT DISTINCT body->>'t' AS tenant, body->>'u' AS user_id FROM laurel_events
     WHERE prefix = $1 AND drained_at >= to_timestamp($2 / 1000.0)`, [prefix, since],
  );
  for (const r of rows) {
    if (typeof r.tenant !== 'string' || typeof r.user_id !== 'string') continue;
    let users = byTenant.get(r.tenant);
    if (users === undefined) byTenant.set(r.tenant, (users = new Set()));
    users.add(r.user_id);
  }
  return byTenant;
}

/** The tenants users may belong to: the default one and every tenant configured (archived too). */
function allTenants(deps: Pick<Context, 'store'>): string[] {
  return ['_', ...deps.store.current.tenants.keys()];
}

/**
 * Takes a snapshot: full when `full` or when none was taken yet, else what changed since the last
 * one. Null for a new installation (nothing configured yet, nothing in Postgres): nothing to keep.
 */
export async function takeSnapshot(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'settings'>, pool: pg.Pool, full = false,
): Promise<SnapshotResult | null> {
  const started = Date.now();
  const { redis, keys, settings } = deps;
  if ((await redis.exists(keys.lostData, keys.restoring)) > 0) {
    throw new SnapshotError(`Redis lost the data of installation "${settings.prefix}", or a restore is rebuilding it: no snapshot is taken (it would replace what Postgres keeps)`);
  }
  if ((await redis.exists(keys.configVersion)) === 0) {
    if (!(await postgresHoldsData(pool, settings.prefix))) return null;
    throw new SnapshotError(`Redis holds no data of installation "${settings.prefix}": no snapshot is taken (it would replace what Postgres keeps)`);
  }
  const store = new SnapshotStore(pool, settings.prefix);
  const release = await store.lock();
  try {
    const interrupted = await store.failUnfinished();
    return { ...(await snapshotLocked(deps, pool, store, full, started)), interrupted };
  } finally {
    await release();
  }
}

/**
 * Marks failed the snapshots a process that died left unfinished, unless a snapshot runs now (its
 * own row is unfinished, and it marks the others when it began). Answers their ids (null: one runs).
 */
export async function failInterruptedSnapshots(pool: pg.Pool, prefix: string): Promise<number[] | null> {
  const store = new SnapshotStore(pool, prefix);
  const release = await store.tryLock();
  if (release === null) return null;
  try {
    return await store.failUnfinished();
  } finally {
    await release();
  }
}

type Taken = Omit<SnapshotResult, 'interrupted'>;

async function snapshotLocked(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'settings'>, pool: pg.Pool, store: SnapshotStore, full: boolean, started: number,
): Promise<Taken> {
  const last = await store.latest();
  const isFull = full || last === null;
  const id = await store.begin(isFull, Date.now());
  try {
    return await snapshotInto(deps, pool, store, id, isFull, last, started);
  } catch (err) {
    // Marked failed now; should Postgres refuse that too, the next snapshot marks it.
    await store.fail(id, err instanceof Error ? err.message : String(err)).catch(() => undefined);
    throw err;
  }
}

async function snapshotInto(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'settings'>, pool: pg.Pool, store: SnapshotStore, id: number, isFull: boolean,
  last: SnapshotRecord | null, started: number,
): Promise<Taken> {
  const { redis, keys, settings } = deps;

  let users = 0;
  const save = async (tenant: string, ids: Iterable<string>) => {
    const states = (await Promise.all([...ids].map((u) => readUser(deps, tenant, u)))).filter((x): x is UserState => x !== null);
    await store.saveUsers(id, states);
    users += states.length;
  };
  if (isFull) {
    for (const tenant of allTenants(deps)) {
      for await (const { userIds } of userBatches(redis, keys, tenant)) await save(tenant, userIds);
    }
  } else {
    for (const [tenant, ids] of await changedUsers(pool, settings.prefix, last!.startedAt - OVERLAP_MS)) {
      const list = [...ids];
      for (let i = 0; i < list.length; i += 200) await save(tenant, list.slice(i, i + 200));
    }
  }
  // The other keys after the users: they hold at least the placements of what the users' state
  // includes, and a restore's replay of the later entries keeps their original order (an older one
  // changes nothing).
  const digests = await store.keyDigests();
  const seen = new Set<string>();
  let read = 0;
  let written = 0;
  let changed: KeyState[] = [];
  let bytes = 0;
  const flush = async () => {
    await store.saveKeys(id, changed);
    written += changed.length;
    changed = [];
    bytes = 0;
  };
  const keep = (key: string, dump: Buffer) => {
    seen.add(key);
    read++;
    const digest = createHash('sha1').update(dump).digest('base64');
    if (digests.get(key) === digest) return;
    changed.push({ key, digest, dump });
    bytes += dump.length;
  };
  for (const patterns of [sharedKeyPatterns(settings.prefix), batchKeyPatterns(settings.prefix)]) {
    const walked = await walk(deps, patterns);
    const { slots } = walked;
    try {
      // The large runs of uncapped boards, member by member (src/redis/run-members.ts), their
      // buckets written 8 MB at a time (each bucket's users whole in it; about 130 kB a bucket).
      for (const [tag, { run, users }] of walked.large) {
        const names = slots.get(tag) ?? new Set<string>();
        slots.delete(tag);
        await readRunByMembers(redis, run, names, users, async (key, dump) => {
          keep(key, dump);
          if (bytes >= 8e6) await flush();
        });
        await flush();
        await users.close();
      }
    } finally {
      await closeWalked(walked);
    }
    // The other slots a few at a time, each batch's changes in one statement: a snapshot that
    // fails part-way never leaves a slot's keys half of one moment and half of another.
    for (const batch of slotBatches(slots)) {
      for (const dumps of await Promise.all(batch.map((names) => readSlot(deps, names)))) {
        for (const [key, dump] of dumps) keep(key, dump);
      }
      await flush();
    }
  }
  // The sketches of the days the drain changed (all of them on a full snapshot), 500 a statement;
  // a copy that fails leaves them noted for the next one.
  const sketches = await readSketches(deps, allTenants(deps), isFull);
  try {
    for (const [key, dump] of sketches.dumps) {
      keep(key, dump);
      if (changed.length >= 500) await flush();
    }
    await flush();
  } catch (err) {
    await sketches.putBack();
    throw err;
  }
  // A sketch an incremental snapshot did not read has not changed: its copy stays (a full one reads them all).
  await store.dropKeys([...digests.keys()].filter((k) => !seen.has(k) && (isFull || !isSketch(k))));

  await store.finish(id, users, read);
  return { id, full: isFull, users, keys: read, written, ms: Date.now() - started };
}
