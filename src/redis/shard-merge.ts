/**
 * A stretch of a sharded run read from a pivot (src/redis/sharded-rankings.ts): the shards'
 * members merged in one ranking's order (a higher value first, then the larger member, byte by
 * byte, as Redis orders equal values), each shard read a chunk at a time, only as far as the merge
 * reaches into it. A page of `count` places reads about 1.5 × `count` members over all the shards
 * (a chunk of each first, about its share, then more of those the merge runs through, each chunk
 * twice the one before), not `count` of every shard.
 *
 * The chunks of a shard are read one after the other: a placement between two reads may move a
 * user from one chunk into the next (read twice: kept once, the first time) or past the read (not
 * met), as it may move them between two shards' reads anyway.
 */
import type { RedisClient } from './client.js';
import { userOfMember } from './rankings.js';

/** A member as read with its score. */
export interface Entry {
  member: string;
  score: number;
}

/**
 * Two texts in the order of their UTF-8 bytes, as Redis compares members, without encoding them:
 * that is the order of their code points, which UTF-16's code units keep but where a surrogate
 * (half of a code point past U+FFFF) meets a unit from U+E000 up.
 */
function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Negative when `a` ranks before `b` in one ranking's order: the higher value, then the larger member (bytes). */
export function compare(a: Entry, b: Entry): number {
  if (a.score !== b.score) return b.score - a.score;
  return compareText(b.member, a.member);
}

export function entriesOf(flat: string[]): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i], score: Number(flat[i + 1]) });
  return out;
}

/** The fewest members a shard is read at a time. */
const MIN_CHUNK = 8;

/** One shard's side of the merge: what was read and not yet taken, and where its next read starts. */
interface Cursor {
  ranking: string;
  read: Entry[];
  at: number;
  /** Going down: the next position to read. Going up: the position above which to read next. */
  next: number;
  chunk: number;
  done: boolean;
}

/**
 * The `skip + count` members below the pivot (the run's positions from it down), the first `skip`
 * left out; `splits[i]`: shard i's members above the pivot. Fewer at the run's end.
 */
export async function mergeDown(redis: RedisClient, rankings: readonly string[], splits: readonly number[], skip: number, count: number): Promise<Entry[]> {
  const need = skip + count;
  const chunk = Math.max(MIN_CHUNK, Math.ceil((1.5 * need) / rankings.length));
  const cursors: Cursor[] = rankings.map((ranking, i) => ({ ranking, read: [], at: 0, next: splits[i], chunk, done: false }));
  const refill = async (c: Cursor): Promise<void> => {
    const flat = await redis.zrevrange(c.ranking, c.next, c.next + c.chunk - 1, 'WITHSCORES');
    c.read = entriesOf(flat);
    c.at = 0;
    c.done = c.read.length < c.chunk;
    c.next += c.chunk;
    c.chunk *= 2;
  };
  return merge(cursors, need, skip, refill, (a, b) => compare(a, b) < 0);
}

/**
 * The `count` members right above the pivot (the run's positions up from it), the best first;
 * fewer near the top. `splits[i]`: shard i's members above the pivot.
 */
export async function mergeUp(redis: RedisClient, rankings: readonly string[], splits: readonly number[], count: number): Promise<Entry[]> {
  const chunk = Math.max(MIN_CHUNK, Math.ceil((1.5 * count) / rankings.length));
  const cursors: Cursor[] = rankings.map((ranking, i) => ({ ranking, read: [], at: 0, next: splits[i], chunk, done: splits[i] === 0 }));
  const refill = async (c: Cursor): Promise<void> => {
    const first = Math.max(0, c.next - c.chunk);
    // Read best first; taken from the end, the nearest the pivot first.
    c.read = entriesOf(await redis.zrevrange(c.ranking, first, c.next - 1, 'WITHSCORES')).reverse();
    c.at = 0;
    c.next = first;
    c.done = first === 0;
    c.chunk *= 2;
  };
  return (await merge(cursors, count, 0, refill, (a, b) => compare(a, b) > 0)).reverse();
}

/**
 * Takes `need` entries from the cursors, each time the one `first` puts first among the cursors'
 * next ones (a cursor run dry read again first, unless done), the first `skip` left out; a user
 * met again in a later chunk is taken once.
 */
async function merge(
  cursors: Cursor[], need: number, skip: number, refill: (c: Cursor) => Promise<void>, first: (a: Entry, b: Entry) => boolean,
): Promise<Entry[]> {
  const out: Entry[] = [];
  const seen = new Set<string>();
  let taken = 0;
  for (;;) {
    // Every cursor holds its next entry, or has none left.
    const dry = cursors.filter((c) => c.at === c.read.length && !c.done);
    if (dry.length > 0) await Promise.all(dry.map(refill));
    while (taken < need) {
      let best: Cursor | null = null;
      let dried = false;
      for (const c of cursors) {
        if (c.at < c.read.length) {
          if (best === null || first(c.read[c.at], best.read[best.at])) best = c;
        } else if (!c.done) {
          dried = true;
          break;
        }
      }
      if (dried) break;
      // Every shard read to its end.
      if (best === null) return out;
      const e = best.read[best.at++];
      const user = userOfMember(e.member);
      if (seen.has(user)) continue;
      seen.add(user);
      if (taken++ >= skip) out.push(e);
    }
    if (taken >= need) return out;
  }
}
