/**
 * `leaderboard.rank_changed` below an uncapped run's first REPORTED_TOP (docs/webhooks.md): the
 * window's pass (src/engine/webhooks/rankings.ts) compares the first REPORTED_TOP of each run
 * with what it saw before; below them it looks only at the users the log drain noted. While an
 * endpoint subscribes, the drain notes, for each entry that may move an uncapped board (an
 * event's metric, points awards, a streak extension), its user in the run's notes (a sorted set
 * in the board's index slot: user -> the latest such entry's time, ZADD GT), before the entries
 * are archived: written again, a note changes nothing, and a restore notes again the entries
 * after its snapshot. The pass reads the notes of entries at least SETTLE_MS old (an entry is
 * appended before its placement: by then it is placed, by its api process or the replay of a
 * process that died), reads those users' exact places through the sharded reader, and after
 * recording their moves takes each note only while it is the one read (lua/dueTake-1.lua):
 * a user noted again meanwhile is read by the next pass.
 */
import { capOf } from '../../domain/leaderboards/cap.js';
import { metricBoards, pointsBoards, runOf, streakBoards } from '../../domain/leaderboards/runs.js';
import { localDay } from '../../domain/time.js';
import type { ParsedEntry } from '../../domain/webhooks/events.js';
import type { Leaderboard, WebhookType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { sentTogether } from '../../redis/coalesce.js';
import * as dueTake from '../../redis/scripts/dueTake.js';
import type { Context } from '../context.js';

/** The first ranks of a run the window's pass reads whole; below them, only the users noted. */
export const REPORTED_TOP = 1000;
/** How old a noted entry is before the pass reads its user's place (ms). */
export const SETTLE_MS = 60_000;
/** Notes read per page. */
const PAGE = 2000;

/** Whether the pass reads noted users on `lb`: a board ranking more than its first REPORTED_TOP. */
export const notesUsers = (lb: Leaderboard): boolean => capOf(lb) > REPORTED_TOP;

/** Whether the drain notes users: an endpoint wants `leaderboard.rank_changed` and an active board is uncapped. */
export function rankNotesWanted(snapshot: Snapshot, types: ReadonlySet<WebhookType>): boolean {
  return types.has('leaderboard.rank_changed') && [...snapshot.leaderboards.values()].some((lb) => lb.status !== 'inactive' && lb.status !== 'finished' && notesUsers(lb));
}

/** The uncapped boards an entry may move, with the day it counts on. */
function boardsOf(snapshot: Snapshot, entry: ParsedEntry): { boards: Leaderboard[]; day: string } | null {
  const { e } = entry;
  if (e.t === undefined || e.u === undefined || e.ts === undefined) return null;
  const boards: Leaderboard[] = [];
  if (typeof e.m === 'string') boards.push(...metricBoards(snapshot, e.m));
  if (Array.isArray(e.pa) && e.pa.length > 0) {
    const systems = new Set(e.pa.map(([systemId]) => systemId));
    boards.push(...pointsBoards(snapshot).filter((lb) => lb.pointsSystemId !== null && systems.has(lb.pointsSystemId)));
  }
  if (e.sx !== undefined) boards.push(...streakBoards(snapshot));
  const uncapped = boards.filter(notesUsers);
  return uncapped.length === 0 ? null : { boards: uncapped, day: e.d ?? localDay('UTC', e.ts) };
}

/** Notes the users of the entries that may move an uncapped board (one ZADD GT per run, all sent together). */
export async function noteRankMoves(deps: Pick<Context, 'redis' | 'keys' | 'store'>, entries: ParsedEntry[]): Promise<void> {
  const snapshot = deps.store.current;
  const byRun = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    const of = boardsOf(snapshot, entry);
    if (of === null) continue;
    const { t, u, ts } = entry.e as { t: string; u: string; ts: number };
    for (const lb of of.boards) {
      const run = runOf(lb, of.day);
      if (run === null) continue;
      const key = deps.keys.leaderboardIndex(t, lb.id).noted(run.start);
      let users = byRun.get(key);
      if (users === undefined) byRun.set(key, (users = new Map()));
      users.set(u, Math.max(users.get(u) ?? 0, ts));
    }
  }
  if (byRun.size === 0) return;
  const { redis } = deps;
  await Promise.all(sentTogether(redis, () => [...byRun].map(([key, users]) =>
    redis.zadd(key, 'GT', ...[...users].flatMap(([u, ts]) => [ts, u])))));
}

/** Pages of notes a pass reads of one run at most (the rest wait for the next window). */
const MAX_PAGES = 50;

/** How many notes of a run a pass reads: `pages` pages of `page` (100,000). */
export interface NotesLimit {
  page: number;
  pages: number;
}

const NOTES_LIMIT: NotesLimit = { page: PAGE, pages: MAX_PAGES };

/**
 * Hands the run's users noted for entries at least SETTLE_MS before `now` to `record`, a page at
 * a time, oldest note first, and takes each page's notes once `record` is done, each only while it
 * is the note read. Past `limit` the pass stops; the notes it did not read stay, and are the
 * oldest the next pass reads first: a run with more noted users than a pass reads is read over
 * several windows, each user once for each note.
 */
export async function forNotedUsers(
  deps: Pick<Context, 'redis' | 'keys'>, tenant: string, lb: Leaderboard, run: string, now: number,
  record: (users: string[]) => Promise<void>, limit: NotesLimit = NOTES_LIMIT,
): Promise<void> {
  const key = deps.keys.leaderboardIndex(tenant, lb.id).noted(run);
  for (let pages = 0; pages < limit.pages; pages++) {
    const flat = await deps.redis.zrangebyscore(key, '-inf', now - SETTLE_MS, 'WITHSCORES', 'LIMIT', 0, limit.page);
    if (flat.length === 0) return;
    const users: string[] = [];
    for (let i = 0; i < flat.length; i += 2) users.push(flat[i]);
    await record(users);
    const taken = await dueTake.run(deps.redis, key, flat);
    // A full page taken: the next one; otherwise what is left was noted again meanwhile (the next window's).
    if (flat.length < 2 * limit.page || taken === 0) return;
  }
}
