/**
 * The rank-notes pass (src/engine/webhooks/rank-notes.ts) past its limit of noted users a run, on
 * real Redis, at a limit of 2 pages of 2 notes: a pass reads the oldest notes up to the limit and
 * leaves the rest, which the next passes read, oldest first, until none is left; a user noted
 * again while a pass read them is read again by a later one; a note not yet settled waits.
 */
import { describe, expect, it } from 'vitest';
import type { Leaderboard } from '../../src/model/entities.js';
import { forNotedUsers, SETTLE_MS } from '../../src/engine/webhooks/rank-notes.js';
import { scriptedRedis } from '../support/scripted-redis.js';

const { keys, redis } = scriptedRedis();
const NOW = 1_900_000_000_000;
const lb = { id: 'noted-board' } as Leaderboard;
const LIMIT = { page: 2, pages: 2 };

describe('the rank-notes pass past its limit', () => {
  it('reads a run\'s notes over several passes, oldest first, each user once a note', async () => {
    const deps = { redis: redis(), keys };
    const key = keys.leaderboardIndex('_', lb.id).noted('2026-01-01');
    const settled = NOW - SETTLE_MS - 1000;
    // u0 the oldest note; u10 not settled by NOW.
    await redis().zadd(key, ...Array.from({ length: 10 }, (_, i) => [settled - 100 + i, `u${i}`]).flat(), NOW - 10, 'u10');
    const pass = async (again?: string) => {
      const read: string[][] = [];
      await forNotedUsers(deps, '_', lb, '2026-01-01', NOW, async (users) => {
        read.push(users);
        // Noted again (a later entry, settled too) after this page was read: kept for a later pass.
        if (again !== undefined && users.includes(again)) await redis().zadd(key, 'GT', settled, again);
      }, LIMIT);
      return read;
    };
    expect(await pass('u1')).toEqual([['u0', 'u1'], ['u2', 'u3']]);
    expect(await pass()).toEqual([['u4', 'u5'], ['u6', 'u7']]);
    expect(await pass()).toEqual([['u8', 'u9'], ['u1']]);
    expect(await pass()).toEqual([]);
    expect(await redis().zrange(key, 0, -1)).toEqual(['u10']);
  });
});
