/**
 * A move whose placement lands long after its entry was read (docs/live.md, "Leaderboard topics"):
 * an event's entry is appended before its placement (phase 2, after the answer), and the api process
 * that places it can be held up well past the publisher's few passes of the board. The board's
 * passes (src/engine/live/boards.ts) are driven here one by one against the real Redis, with the
 * mark an entry read makes, while a socket of the real server follows the board's topic: the move
 * is sent once the placement lands, and the board is not read for ever for a user who never moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets, type TestServer } from '../support/server.js';
import { eventually } from '../support/eventually.js';
import { liveUrl, openLive, type LiveClient } from '../support/live-client.js';
import { LiveBoards } from '../../src/engine/live/boards.js';
import { PENDING_MS } from '../../src/engine/live/ranking-diff.js';
import { runOf } from '../../src/domain/leaderboards/runs.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import type { Leaderboard } from '../../src/model/entities.js';

/** Every topic wanted: the passes publish all they see. */
const everyTopic = { has: () => true, anyStartingWith: () => true };

describe.each(targets())('a move whose placement lands late, on %s', (target) => {
  let s: TestServer;
  let watcher: LiveClient;
  let lb: Leaderboard;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    // No workers: the only publisher is the one driven here.
    s = await startTestServer({ target });
    const { lessons } = await s.metrics('lessons');
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Lessons', key: 'lessons', rankBy: 'metric', metricId: lessons, status: 'active', start: '2020-01-01' }],
    });
    expect(boards.status, boards.text).toBe(201);
    await s.api.services.store.reload();
    lb = [...s.api.services.store.current.leaderboards.values()].find((b) => b.key === 'lessons')!;
    const key = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'watcher' }] });
    expect(key.status, key.text).toBe(201);
    watcher = await openLive(liveUrl(s.url, key.body.created[0].key as string));
    await watcher.subscribe(['leaderboard:lessons']);
  });
  afterAll(async () => {
    await watcher?.close();
    await s?.close();
  });

  /** Runs n passes; answers the messages they published. */
  const passes = async (boards: LiveBoards, n: number): Promise<number> => {
    let published = 0;
    for (let i = 0; i < n; i++) published += await boards.pass();
    return published;
  };

  it('sends the move of a user whose placement lands many passes after their entry was read', async () => {
    const boards = new LiveBoards(s.api.services, everyTopic as never);
    const run = runOf(lb, today)!;
    // The entry is read; its placement is held up: pass after pass, the board holds nothing new.
    boards.mark(DEFAULT_TENANT, lb, run, 'ann');
    expect(await passes(boards, 10)).toBe(0);
    expect(boards.pending).toBe(1);
    // The placement lands (after the event's answer).
    await s.event('lessons', 'ann', 3);
    await eventually(async () => {
      expect(await boards.pass()).toBeGreaterThan(0);
    });
    const moved = await watcher.next((m) => m.type === 'leaderboard.rank_changed');
    expect(moved.data.user).toEqual({ id: 'ann', name: null });
    expect(moved.data.leaderboard).toMatchObject({ key: 'lessons', rank: 1, value: 3, previousRank: null, previousValue: null });
    // Seen moving: the board is read no more once its passes run out.
    await passes(boards, 3);
    expect(boards.pending).toBe(0);
  });

  it('stops reading the board for a user whose entry moves nothing, once the wait is over', async () => {
    const boards = new LiveBoards(s.api.services, everyTopic as never);
    const named = Date.now();
    boards.mark(DEFAULT_TENANT, lb, runOf(lb, today)!, 'bob');
    let waited = 0;
    for (;;) {
      expect(await boards.pass()).toBe(0);
      // A pass that ended before the wait was over still reads the board.
      if (Date.now() < named + PENDING_MS) expect(boards.pending).toBe(1);
      else break;
      waited++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(waited).toBeGreaterThan(3);
    await eventually(async () => {
      await boards.pass();
      expect(boards.pending).toBe(0);
    });
  });
});
