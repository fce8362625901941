/**
 * A large run of an uncapped board in the snapshots, member by member (docs/operations.md,
 * "Snapshots"). A run's slot holds its ranking, members and sequences and a history and awards
 * key per participant: DUMPed whole in one transaction (src/engine/durability/snapshot.ts
 * readSlot), a million participants are a million DUMPs in one reply (two million on a points
 * board), and a ranking of a hundred million would not fit one Postgres value (1 GB). The runs the snapshot chooses
 * (src/engine/durability/snapshot.ts memberwiseRun) are read instead a few hundred users at a time
 * (lua/boardMembers-n.lua: each user as they stand at one moment, which is what a restore's replay
 * needs: a placement writes a user's member, sequence and history in one script) and kept in
 * buckets of about a thousand users by a hash of their id, one row each
 * (`<run's keys>#m<buckets>.<bucket>`): a bucket that did not change keeps its digest and is not
 * written again. The run's users are gathered on disk (src/lib/spill-set.ts) and read back a group of
 * buckets at a time, so the process taking the snapshot holds a group's users, never the run's. The
 * run's other keys (its rank changes `:s`, the falls counter `:f`) are DUMPed
 * apart; they count over the users, so placements made while the run is read may be in them and
 * not in the users' rows or the reverse (a restore's statistics of the run may differ by those;
 * its rankings do not).
 */
import { SpillSet } from '../lib/spill-set.js';
import type { RedisClient } from './client.js';
import { fnv1a, unescapeId, type Keys, type LeaderboardKeys } from './keys.js';
import * as boardMembers from './scripts/boardMembers.js';
import { MEMBER_FIELDS, type MemberState } from './scripts/boardMembers.js';

/** Users a bucket holds about, and users read per script. */
const PER_BUCKET = 1000;
const PER_READ = 250;
/** Buckets read at once. */
const PARALLEL = 4;
/**
 * The files a run's users are spilled into while a snapshot gathers them (SpillSet): a hundred
 * million users are read back about 400,000 at a time.
 */
const SPILL_PARTS = 256;

const MARK = '#m';

/** The row of bucket `bucket` of `buckets` of a run whose keys begin with `base` (`<prefix>:{lb:…}:`). */
function bucketKey(base: string, buckets: number, bucket: number): string {
  return `${base}${MARK}${buckets}.${bucket}`;
}

/** The run's keys and the bucket a row holds, or null when `key` is not a bucket's row (a key of Redis). */
export function bucketOfKey(keys: Keys, key: string): { run: LeaderboardKeys; buckets: number; bucket: number } | null {
  const at = key.lastIndexOf(`}:${MARK}`);
  if (at < 0) return null;
  const m = /^(\d+)\.(\d+)$/.exec(key.slice(at + 2 + MARK.length));
  const run = m === null ? null : keys.runOfMembers(`${key.slice(0, at + 2)}m`);
  return run === null || m === null ? null : { run, buckets: Number(m[1]), bucket: Number(m[2]) };
}

/** A user's hash, whose low bits are their bucket. */
function userHash(userId: string): number {
  return fnv1a(userId, 0x811c9dc5);
}

/** The common part of a run's keys, `<prefix>:{lb:…}:`. */
function baseOf(run: LeaderboardKeys): string {
  return run.members.slice(0, -1);
}

/** A hash's fields (or a sorted set's members), a page at a time. */
async function* fieldsOf(redis: RedisClient, key: string, sorted: boolean): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, flat] = sorted ? await redis.zscan(key, cursor, 'COUNT', 1000) : await redis.hscan(key, cursor, 'COUNT', 1000);
    cursor = next;
    const fields: string[] = [];
    for (let i = 0; i < flat.length; i += 2) fields.push(flat[i]);
    yield fields;
  } while (cursor !== '0');
}

/**
 * Adds to `users` every user the run holds anything of in its hashes and sorted sets: the members,
 * the sequences (kept for users who left), what the webhooks and the live publisher last saw, and
 * the expiries. (The users of the history and awards keys, kept for a user who left too, are added
 * as the snapshot's walk finds the keys: userOfKey.)
 */
async function addUsers(redis: RedisClient, run: LeaderboardKeys, users: SpillSet): Promise<void> {
  for (const [key, sorted] of [[run.members, false], [run.sequences, false], [run.reported, false], [run.live, false], [run.expiry, true]] as const) {
    for await (const fields of fieldsOf(redis, key, sorted)) await users.add(fields);
  }
}

/** The keys of a run that are kept per user (the rest of its slot is DUMPed apart). */
export function isPerUser(run: LeaderboardKeys, name: string): boolean {
  return name === run.ranking || name === run.members || name === run.sequences || name === run.expiry
    || name === run.reported || name === run.live || userOfKey(run, name) !== null;
}

/** The user of one of the run's history or awards keys (`…:h:<uid>`, `…:a:<uid>`), or null for another key. */
export function userOfKey(run: LeaderboardKeys, name: string): string | null {
  const base = baseOf(run);
  if (!name.startsWith(base) || name.length < base.length + 3 || name[base.length + 1] !== ':') return null;
  const kind = name[base.length];
  return kind === 'h' || kind === 'a' ? unescapeId(name.slice(base.length + 2)) : null;
}

/** An empty set of a run's users, kept on disk while it is built (close it when done). */
export function runUsers(): Promise<SpillSet> {
  return SpillSet.open(SPILL_PARTS, userHash);
}

/** Users' states as one value: per user its id and MEMBER_FIELDS, each `<length>:<bytes>` or `-:` (none). */
export function packMembers(states: MemberState[]): Buffer {
  const parts: Buffer[] = [];
  const put = (value: Buffer | null) => {
    if (value === null) parts.push(Buffer.from('-:'));
    else parts.push(Buffer.from(`${value.length}:`), value);
  };
  for (const state of states) {
    put(Buffer.from(state.userId));
    for (const field of MEMBER_FIELDS) put(state[field]);
  }
  return Buffer.concat(parts);
}

export function unpackMembers(packed: Buffer): MemberState[] {
  const states: MemberState[] = [];
  let at = 0;
  const next = (): Buffer | null => {
    const colon = packed.indexOf(0x3a, at);
    const head = packed.subarray(at, colon).toString();
    if (head === '-') {
      at = colon + 1;
      return null;
    }
    const value = Buffer.from(packed.subarray(colon + 1, colon + 1 + Number(head)));
    at = colon + 1 + Number(head);
    return value;
  };
  while (at < packed.length) {
    const state = { userId: next()!.toString() } as MemberState;
    for (const field of MEMBER_FIELDS) state[field] = next();
    states.push(state);
  }
  return states;
}

/** The users' states now, those the run holds anything of, in the order given. */
async function readUsers(redis: RedisClient, run: LeaderboardKeys, userIds: string[]): Promise<MemberState[]> {
  const states: MemberState[] = [];
  for (let i = 0; i < userIds.length; i += PER_READ) {
    for (const state of await boardMembers.run(redis, run, userIds.slice(i, i + PER_READ))) {
      if (MEMBER_FIELDS.some((f) => state[f] !== null)) states.push(state);
    }
  }
  return states;
}

/**
 * Reads a run member by member: hands `keep` each bucket's row (a bucket without users has none)
 * and each of the slot's keys not kept per user (of `names`, the slot's keys as SCAN found them) as
 * DUMPed. `users` holds the users of the history and awards keys SCAN found (runUsers; those keys
 * need not be in `names`), and gets the users of the run's hashes and sorted sets here. What this
 * process holds at once is a group of buckets' users, not the run's.
 */
export async function readRunByMembers(
  redis: RedisClient, run: LeaderboardKeys, names: Iterable<string>, users: SpillSet, keep: (key: string, dump: Buffer) => Promise<void>,
): Promise<void> {
  const dumped = [...names].filter((name) => !isPerUser(run, name));
  if (dumped.length > 0) {
    const multi = redis.multi();
    for (const name of dumped) multi.dumpBuffer(name);
    const results = (await multi.exec()) ?? [];
    for (const [i, [err, dump]] of results.entries()) {
      if (err) throw err;
      if (dump !== null) await keep(dumped[i], dump as Buffer);
    }
  }
  await addUsers(redis, run, users);
  const count = await users.size();
  let buckets = 1;
  while (buckets * PER_BUCKET < count) buckets *= 2;
  const base = baseOf(run);
  let batch: { bucket: number; ids: string[] }[] = [];
  const readBatch = async () => {
    const read = await Promise.all(batch.map(({ ids }) => readUsers(redis, run, ids.sort())));
    for (const [i, states] of read.entries()) if (states.length > 0) await keep(bucketKey(base, buckets, batch[i].bucket), packMembers(states));
    batch = [];
  };
  for await (const { group, members } of users.grouped(buckets)) {
    batch.push({ bucket: group, ids: members });
    if (batch.length >= PARALLEL) await readBatch();
  }
  if (batch.length > 0) await readBatch();
}

/** Writes a bucket's users back into their run (a restore, into a Redis without the run). */
export async function restoreBucket(redis: RedisClient, run: LeaderboardKeys, packed: Buffer): Promise<number> {
  const states = unpackMembers(packed);
  const multi = redis.multi();
  for (const s of states) {
    if (s.member !== null && s.score !== null) {
      multi.zadd(run.ranking, s.score, s.member);
      multi.hset(run.members, s.userId, s.member);
    }
    if (s.sequence !== null) multi.hset(run.sequences, s.userId, s.sequence);
    if (s.expiry !== null) multi.zadd(run.expiry, s.expiry, s.userId);
    if (s.reported !== null) multi.hset(run.reported, s.userId, s.reported);
    if (s.published !== null) multi.hset(run.live, s.userId, s.published);
    if (s.history !== null) multi.restore(run.history(s.userId), 0, s.history, 'REPLACE');
    if (s.awards !== null) multi.restore(run.awards(s.userId), 0, s.awards, 'REPLACE');
  }
  for (const [err] of (await multi.exec()) ?? []) if (err) throw err;
  return states.length;
}

/** A row of the snapshots' keys: its name, and the snapshot that wrote it. */
export interface KeptRow {
  key: string;
  snapshot: number;
}

/**
 * Which rows of the snapshots a restore takes of the runs kept by buckets. A run is kept one way
 * at a time, whole or by buckets of a count; a snapshot that changed the way and did not finish
 * left rows of both (the latest snapshot that finished drops the rows of the ways it did not
 * write), and the new way's may be part of one. From the bucket rows (`buckets`) and the ranking
 * and members rows of their runs (`whole`), each run's way is the one whose rows the latest
 * snapshot that finished (`finished`) or an earlier one wrote. Answers whether a row is taken.
 */
export function layoutChoice(keys: Keys, buckets: KeptRow[], whole: KeptRow[], finished: number): (key: string) => boolean {
  const ways = new Map<string, Map<string, number>>();
  const note = (base: string, way: string, snapshot: number) => {
    let of = ways.get(base);
    if (of === undefined) ways.set(base, (of = new Map()));
    of.set(way, Math.max(of.get(way) ?? 0, snapshot));
  };
  for (const row of buckets) {
    const b = bucketOfKey(keys, row.key);
    if (b !== null) note(baseOf(b.run), `${MARK}${b.buckets}`, row.snapshot);
  }
  for (const row of whole) note(row.key.slice(0, row.key.indexOf('}:') + 2), 'whole', row.snapshot);
  const chosen = new Map<string, string>();
  for (const [base, of] of ways) {
    if (of.size < 2) continue;
    const ranked = [...of].sort((a, b) => b[1] - a[1]);
    chosen.set(base, (ranked.find(([, snapshot]) => snapshot <= finished) ?? ranked[0])[0]);
  }
  if (chosen.size === 0) return () => true;
  return (key) => {
    const b = bucketOfKey(keys, key);
    if (b !== null) return (chosen.get(baseOf(b.run)) ?? `${MARK}${b.buckets}`) === `${MARK}${b.buckets}`;
    const base = key.slice(0, key.indexOf('}:') + 2);
    const way = chosen.get(base);
    if (way === undefined || way === 'whole') return true;
    const run = keys.runOfMembers(`${base}m`);
    return run === null || !isPerUser(run, key);
  };
}
