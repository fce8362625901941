/**
 * The points.changed windows' scripts (lua/pointsNote-2.lua, lua/pointsTake-2.lua) called directly
 * against real Redis: a note of an earlier entry never replaces a later one's, a window's end only
 * moves later; a member is taken only while its window's end and its latest entry are the ones
 * read, and one whose entry is gone is taken as read.
 */
import { describe, expect, it } from 'vitest';
import { scriptedRedis } from '../support/scripted-redis.js';

const { keys, redis } = scriptedRedis();

const W1 = '1900000900000';
const W2 = '1900001800000';
/** A value as the drain writes it: the entry id, fixed width, first. */
const value = (n: number, total: number) => `${String(1_900_000_000_000 + n).padStart(16, '0')}${'0'.padStart(20, '0')}\t${1_900_000_000_000 + n}\t[["xp","t",10,${total},0,"x"]]`;

describe('the points.changed windows', () => {
  it('keeps the latest entry of a member, and its latest window', async () => {
    const k = keys.partitionPointsChanged(1);
    const m = JSON.stringify(['', 'ann', 'xp']);
    expect(await redis().pointsNote(k.latest, k.due, m, value(2, 20), W1)).toBe(1);
    // An earlier entry, written after (a drainer side by side): neither its entry nor an earlier window.
    expect(await redis().pointsNote(k.latest, k.due, m, value(1, 10), W1)).toBe(0);
    expect(await redis().hget(k.latest, m)).toBe(value(2, 20));
    expect(await redis().pointsNote(k.latest, k.due, m, value(3, 30), W2)).toBe(1);
    expect(await redis().pointsNote(k.latest, k.due, m, value(1, 10), W1)).toBe(0);
    expect([await redis().hget(k.latest, m), await redis().zscore(k.due, m)]).toEqual([value(3, 30), W2]);
  });

  it('takes a member only as it was read, and one whose entry is gone as read', async () => {
    const k = keys.partitionPointsChanged(2);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((u) => JSON.stringify(['', u, 'xp']));
    await redis().pointsNote(k.latest, k.due, a, value(1, 10), W1, b, value(1, 10), W1, c, value(1, 10), W1, d, value(1, 10), W1);
    // Read here; then the drain notes a later entry of b (same window) and a later window of c.
    await redis().pointsNote(k.latest, k.due, b, value(2, 20), W1, c, value(3, 30), W2);
    await redis().hdel(k.latest, d);
    const taken = await redis().pointsTake(k.latest, k.due, a, W1, value(1, 10), b, W1, value(1, 10), c, W1, value(1, 10), d, W1, '');
    expect(taken).toBe(2);
    expect(await redis().zrange(k.due, 0, -1, 'WITHSCORES')).toEqual([b, W1, c, W2]);
    expect((await redis().hkeys(k.latest)).sort()).toEqual([b, c].sort());
    expect(await redis().hget(k.latest, b)).toBe(value(2, 20));
  });
});
