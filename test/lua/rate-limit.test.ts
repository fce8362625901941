/**
 * The rate-limit script (lua/rateLimit-1.lua, lua/includes/gcra.lua) called directly against real
 * Redis, with the time as an argument: a burst, then one request per interval; a refused request
 * writes nothing; a clock that went back costs one interval, not the jump; the bucket expires.
 */
import { describe, expect, it } from 'vitest';
import { scriptedRedis } from '../support/scripted-redis.js';

const { keys, redis } = scriptedRedis();

/** 4 a second (250 ms apart), 3 at once (500 ms ahead at most). */
const take = (bucket: string, now: number) => redis().rateLimit(bucket, now, 250, 500);

describe('rateLimit', () => {
  const T = 1_900_000_000_000;

  it('lets a burst through, then one request an interval, and answers the wait', async () => {
    const bucket = keys.apiKey('burst').bucket;
    expect([await take(bucket, T), await take(bucket, T), await take(bucket, T)]).toEqual([0, 0, 0]);
    expect(await take(bucket, T)).toBe(250);
    expect(await take(bucket, T + 100)).toBe(150);
    expect(await take(bucket, T + 250)).toBe(0);
    expect(await take(bucket, T + 250)).toBe(250);
    // Idle long enough, the whole burst is back, and no more.
    expect([await take(bucket, T + 10_000), await take(bucket, T + 10_000), await take(bucket, T + 10_000)]).toEqual([0, 0, 0]);
    expect(await take(bucket, T + 10_000)).toBe(250);
  });

  it('writes nothing for a refused request (within a clock that did not go back)', async () => {
    const bucket = keys.apiKey('refused').bucket;
    for (let i = 0; i < 3; i++) await take(bucket, T);
    const before = await redis().get(bucket);
    expect(await take(bucket, T + 1)).toBeGreaterThan(0);
    expect(await redis().get(bucket)).toBe(before);
  });

  it('takes a clock that went back for a spent burst: one interval to wait, not the jump', async () => {
    const bucket = keys.apiKey('back').bucket;
    for (let i = 0; i < 3; i++) await take(bucket, T + 3_600_000);
    expect(await take(bucket, T)).toBe(250);
    expect(await take(bucket, T + 249)).toBe(1);
    expect(await take(bucket, T + 250)).toBe(0);
    expect(await take(bucket, T + 250)).toBe(250);
  });

  it('keeps a bucket a minute past its refill, on Redis\'s clock', async () => {
    const bucket = keys.apiKey('ttl').bucket;
    await take(bucket, T);
    const ttl = await redis().pttl(bucket);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(60_250);
  });
});
