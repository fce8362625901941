/**
 * A league's stored forms, read in one place: a user's place kept with them (the user hash's
 * `lg:<board id>` field, '<tier index>|<run>|<cohort number>', lua/leagueKeep-2.lua, followed
 * once an outcome moved them by '|<tier carried>|<run moved by>', lua/leagueMove-1.lua), a tier's
 * cohorts in a run (lua/leagueJoin-1.lua: `o` the open cohort, `n` its users, `u:<user id>`), and
 * a cohort's outcome once its run is final (lua/leagueFinalise-2.lua: `u:<user id>` ->
 * '<p|d|s>|<rank>|<value>', `n` the participants, `p`, `d`, `s` how many moved so, `l` once
 * the decision is in the event log as an `outcome` entry).
 */
import type { CohortCounts } from '../model/log.js';
import type { RedisClient } from './client.js';

/** Where a user stands in a league: their tier, the run they last joined, their cohort there (from 0). */
export interface LeaguePlace {
  tier: number;
  run: string;
  cohort: number;
}

/** A place as kept, with the tier the user carries into the next run they join and the last run whose outcome moved it. */
export interface HeldPlace extends LeaguePlace {
  /** The tier of the next run the user joins (their place's own tier until an outcome moved it). */
  next: number;
  /** The last run whose outcome was applied to `next` ('' for none). */
  movedBy: string;
}

/** The user hash's field of a league. */
export function leagueField(boardId: string): string {
  return `lg:${boardId}`;
}

export function leagueText(place: LeaguePlace): string {
  return `${place.tier}|${place.run}|${place.cohort}`;
}

/**
 * Two numbers as the league's scripts and log entries write them, '<a>.<b>': a cohort as
 * '<tier>.<n>' (lua/leagueDepart-6.lua, a `league` entry's `c`), a tier's open cohort and its users
 * as '<open>.<users>' (a `league` entry's `n`).
 */
export function dotted(a: number, b: number): string {
  return `${a}.${b}`;
}

/** The two numbers of a '<a>.<b>' text; null for another text. */
export function dottedOf(text: unknown): [number, number] | null {
  const m = typeof text === 'string' ? /^(\d+)\.(\d+)$/.exec(text) : null;
  return m === null ? null : [Number(m[1]), Number(m[2])];
}

/** A place from its text; null for none (or a text of another form). */
export function leaguePlaceOf(text: string | null | undefined): HeldPlace | null {
  if (text === null || text === undefined) return null;
  const [tier, run, cohort, next, movedBy] = text.split('|');
  if (run === undefined || cohort === undefined) return null;
  return { tier: Number(tier), run, cohort: Number(cohort), next: next ? Number(next) : Number(tier), movedBy: movedBy ?? '' };
}

/** The league places a user's hash holds, each with its board. */
export function heldLeagues(user: Record<string, string>): { boardId: string; place: HeldPlace }[] {
  const prefix = leagueField('');
  const out: { boardId: string; place: HeldPlace }[] = [];
  for (const [field, value] of Object.entries(user)) {
    if (!field.startsWith(prefix)) continue;
    const place = leaguePlaceOf(value);
    if (place !== null) out.push({ boardId: field.slice(prefix.length), place });
  }
  return out;
}

/** A user's place in a league as kept with them (null: never placed). `user`: the user's hash. */
export async function readLeaguePlace(redis: RedisClient, user: string, boardId: string): Promise<HeldPlace | null> {
  return leaguePlaceOf(await redis.hget(user, leagueField(boardId)));
}

/** How many cohorts a tier has opened in a run (0: nobody joined it). `cohorts`: `Keys.leagueTier(...)`. */
export async function cohortCount(redis: RedisClient, cohorts: string): Promise<number> {
  const open = await redis.hget(cohorts, 'o');
  return open === null ? 0 : Number(open) + 1;
}

/** The field of a user's cohort in a tier's cohorts (an erasure removes it). */
export function cohortUserField(userId: string): string {
  return `u:${userId}`;
}

/** A user's outcome in a cohort of a run made final. */
export type Outcome = 'promoted' | 'demoted' | 'stayed';

const OUTCOMES: Record<string, Outcome> = { p: 'promoted', d: 'demoted', s: 'stayed' };

/** A user's outcome as a cohort's outcome hash holds it. */
export interface CohortOutcome {
  outcome: Outcome;
  rank: number;
  value: number;
}

/** An outcome from its text ('<p|d|s>|<rank>|<value>'); null for none. */
export function outcomeOf(text: string | null | undefined): CohortOutcome | null {
  if (text === null || text === undefined) return null;
  const [move, rank, value] = text.split('|');
  const outcome = OUTCOMES[move];
  if (outcome === undefined || value === undefined) return null;
  return { outcome, rank: Number(rank), value: Number(value) };
}

/** How a cohort's users moved once its run is final (null: not decided yet). `outcomes`: `Keys.leagueCohort(...).outcome`. */
export async function cohortMoves(redis: RedisClient, outcomes: string): Promise<Record<Outcome, number> | null> {
  const [p, d, s] = await redis.hmget(outcomes, 'p', 'd', 's');
  if (p === null) return null;
  return { promoted: Number(p), demoted: Number(d ?? 0), stayed: Number(s ?? 0) };
}

/** A user's outcome in a cohort (null: not decided, or not in it). */
export async function readOutcome(redis: RedisClient, outcomes: string, userId: string): Promise<CohortOutcome | null> {
  return outcomeOf(await redis.hget(outcomes, cohortUserField(userId)));
}

/** The outcome hash's field set once the cohort's decision is in the event log. */
const LOGGED = 'l';

/** Notes that the cohort's decision is in the event log (lua/leagueFinalise-2.lua answers it). */
export async function markOutcomeLogged(redis: RedisClient, outcomes: string): Promise<void> {
  await redis.hset(outcomes, LOGGED, '1');
}

/**
 * A cohort's decision written back from its `outcome` log entry (a restore), unless the cohort holds
 * one already (a snapshot's): `counts` its participants and moves, `users` each user's outcome as
 * the hash holds it. Answers whether it wrote.
 */
export async function writeOutcome(
  redis: RedisClient, outcomes: string, counts: CohortCounts, users: Record<string, string>,
): Promise<boolean> {
  if (await redis.exists(outcomes) === 1) return false;
  const fields: string[] = ['n', String(counts.n), 'p', String(counts.p), 'd', String(counts.d), 's', String(counts.s), LOGGED, '1'];
  for (const [userId, text] of Object.entries(users)) fields.push(cohortUserField(userId), text);
  await redis.hset(outcomes, ...fields);
  return true;
}
