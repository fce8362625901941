/**
 * The event log: one Redis stream per partition, appended to by the phase-1 scripts and copied into
 * Postgres by the log drainer. An entry's first field names its kind, the second holds its body as
 * JSON, prepared here so a script appends one string (XADD stays cheap on the hot path); the event
 * script may add fields of its own after it (`sx`, `sp`, `pa`, `ac`), which entryBody puts back
 * into the body.
 *
 *   event        {"e": event id, "t": tenant, "u": user id, "m": metric id, "v": value, "ts": ms,
 *                 "d": its day on the user's clock (src/domain/clock.ts), "p": the api process,
 *                 "z": the user's zone it was counted in ('' UTC; absent in entries of earlier
 *                 versions), "h"?: the hour of the user's clock it counted in when the clock held
 *                 the user there (else the zone's at "ts"), "b"?: the batch item it is ('<batch id>:<index>',
 *                 src/domain/batches.ts), "k"?: idempotency key, "a"?: attributes,
 *                 "f"?: the user's fields the event carries (its identification, but the id),
 *                 "lc"?: the part of "v" that counted, when the metric's limit bit, "im"?: 1 for an
 *                 event of a history import (src/domain/import.ts): no webhooks, notifications or
 *                 live updates come of it (imported), written right after "e"}
 *                 + "sx"?: the streak as stored after an extension, "sp"?: the user's pauses with
 *                 it, "pa"?: points awards, "ac"?: the achievements completed, "ex"?: "1" when
 *                 the user was excluded from the rankings (it counted, and was placed nowhere)
 *   user         {"t", "u", "ts", "f": the identification's fields}   (explicit identification)
 *   achievement  {"t", "u", "ts", "f": the fields, with "achievement"} + "pa"?, "ac"?: the
 *                achievements completed (none when the user had it already)   (API completion)
 *   points       {"t", "u", "ts", "pa"}                               (time awards)
 * and the operations on a user that a restore replays as well:
 *   preferences  {"t", "u", "ts", "f": {"notifications": {type: channels}, "streak"?: the streak
 *                 preferences passed (src/domain/streaks/preferences.ts, metrics by id)}}
 *   freezes      {"t", "u", "ts", "n": freezes granted}
 *   restore      {"t", "u", "ts"}                                     (a streak restored)
 *   pause        {"t", "u", "ts", "op": "add"|"remove", "id", "start"?, "end"?}
 *   backfill     {"t", "u", "ts", "f": {"achievement": id}}           (a silent completion)
 * and the corrections an operator makes (src/engine/fairplay/), which a restore replays too:
 *   voided       {"t", "u", "ts", "e": the event's id, "m", "v": the value taken off (what the
 *                 event counted), "d": the event's local day, "at": the event's time (ms), "why": the
 *                 reason, "z"?: the event's zone (when its entry named it), "lp"?: the period of
 *                 the metric's limit the event fell in, whose sum (still that period's) the value left
 *                 ('<letter><index>')} + "pa"?: the awards of the opposite sign (trigger 'void')
 *   revoked      {"t", "u", "ts", "f": {"achievement": id}}            (a completion revoked)
 *   excluded     {"t", "u", "ts", "why": the reason}                   (taken off the rankings)
 *   included     {"t", "u", "ts"}                                      (the exclusion ended)
 * and a batch's items of the partition, accepted and not yet applied (src/domain/batches.ts):
 *   batch        {"b", "t", "n", "x", "ts", "i": the items} + "q": the batch queue entry's id
 * and a user's erasure (src/engine/erasure/erase.ts), naming the erasure and never the user:
 *   erased       {"t", "ts", "x": the erasure's id}   (in the archive, the user's lines become
 *                `redacted` ones: src/domain/erasure.ts)
 * and what the workers write that a restore could not work out again:
 *   finalised    {"t", "ts", "b": board id, "r": run start, "at": when it became final (ISO),
 *                 "w": {group: winners}}   (a leaderboard run finalised; no user: src/engine/leaderboards/finalised.ts)
 * and a user's seat in a league's tier, which the order of the events' entries does not tell
 * (their placements join in an order of their own: src/engine/leaderboards/league-place.ts):
 *   league       {"t", "u", "ts", "b": board id, "r": run start, "c": '<tier>.<cohort>' joined,
 *                 "n": '<open cohort>.<its users>' the tier's after the join, "e"?: the entry whose
 *                 placement joined} + "lg"?: the place kept with the user as written, when it was
 *                 (lua/leagueKeep-2.lua, lua/leagueShift-2.lua; src/engine/durability/league-seats.ts)
 * and a league cohort's decision when its run was final, which a restore could decide again only
 * from the cohort's ranking as it is then (an erased user gone from it: src/domain/erasure.ts):
 *   outcome      {"t", "ts", "b": board id, "r": run start, "c": '<tier>.<cohort>', "k": {"n": its
 *                 participants, "p", "d", "s": how many moved up, down, stayed}, "o": {user id:
 *                 '<p|d|s>|<rank>|<value>'}}   (src/engine/leaderboards/league-final.ts; no "u")
 */

/** A points award as the event script answers and logs it: [system id, trigger id, awarded, total after, award number, boost ids]. */
export type EventAward = [string, string, number, number, number, string];

/** What the event path writes of an event (eventEntry). */
export interface EventEntry {
  eventId: string;
  tenant: string;
  userId: string;
  metricId: string;
  /** A JSON number, as sent to Redis. */
  value: string;
  ts: number;
  day: string;
  idempotencyKey: string;
  /** Event attributes as JSON; '' when none. */
  attributesJson: string;
  /** The api process (src/engine/durability/liveness.ts). */
  processId: string;
  /** The user's zone the event was counted in ('' is UTC): its day, its minute on a board's window. */
  tz: string;
  /** The identification the event carries (its user's fields but the id) as JSON; '' when none. */
  identificationJson: string;
  /** The batch item the event is ('<batch id>:<index>'), when it is one. */
  batchItem?: string;
  /** The hour of the user's clock the event counted in, when the clock held the user there (src/domain/clock.ts). */
  heldHour?: number;
  /**
   * When the event arrived (ms), for an event sent with `occurredAt` (src/domain/event-time.ts):
   * `ts` is then when it happened.
   */
  arrivedAt?: number;
  /** An event of a history import: nothing is told of it (imported). */
  imported?: boolean;
}

/** What an imported event's body holds between its id and its tenant (eventEntry). */
const IMPORTED = '","im":1,"t":"';

export function eventEntry(e: EventEntry): string {
  let s = `{"e":"${e.eventId}${e.imported === true ? IMPORTED : '","t":"'}${e.tenant}","u":${JSON.stringify(e.userId)},"m":"${e.metricId}",` +
    `"v":${e.value},"ts":${e.ts},"d":"${e.day}","p":"${e.processId}","z":${JSON.stringify(e.tz)}`;
  if (e.batchItem !== undefined) s += `,"b":"${e.batchItem}"`;
  if (e.heldHour !== undefined) s += `,"h":${e.heldHour}`;
  if (e.arrivedAt !== undefined) s += `,"ra":${e.arrivedAt}`;
  if (e.idempotencyKey !== '') s += `,"k":${JSON.stringify(e.idempotencyKey)}`;
  if (e.attributesJson !== '') s += `,"a":${e.attributesJson}`;
  if (e.identificationJson !== '') s += `,"f":${e.identificationJson}`;
  return s + '}';
}

/** A `user` or `achievement` entry. */
export function userEntry(tenant: string, userId: string, ts: number, fields: Record<string, unknown>): string {
  return JSON.stringify({ t: tenant, u: userId, ts, f: fields });
}

/** An entry of an operation on a user (preferences, freezes, restore, pause, backfill): its own fields beside t, u, ts. */
export function operationEntry(tenant: string, userId: string, ts: number, fields: Record<string, unknown>): string {
  return JSON.stringify({ t: tenant, u: userId, ts, ...fields });
}

/** A leaderboard run as the workers finalised it: the body of its `finalised` entry. */
export interface FinalisedRun {
  /** The tenant. */
  t: string;
  /** When the pass finalised it (ms, the service's clock). */
  ts: number;
  /** The board's id. */
  b: string;
  /** The run's first day (YYYY-MM-DD). */
  r: string;
  /** When the run became final (ISO-8601). */
  at: string;
  /** The winners of each breakdown group ('' without a breakdown): the top three, ranked. */
  w: Record<string, { userId: string; rank: number; value: number }[]>;
}

/** A `finalised` entry. */
export function finalisedEntry(run: FinalisedRun): string {
  return JSON.stringify(run);
}

/** A user's seat in a league's tier: the body of its `league` entry (the script adds `lg`). */
export interface LeagueSeat {
  t: string;
  u: string;
  ts: number;
  /** The board's id. */
  b: string;
  /** The run's first day (YYYY-MM-DD). */
  r: string;
  /** The cohort joined, '<tier>.<cohort>'. */
  c: string;
  /** The tier's open cohort and its users after the join, '<open>.<users>'. */
  n: string;
  /** The log entry whose placement joined (absent: a finalisation's move). */
  e?: string;
  /** The place kept with the user as the script wrote it (lua/leagueKeep-2.lua), when it did. */
  lg?: string;
}

/** A `league` entry's body as the script is given it (without `lg`). */
export function leagueEntry(seat: Omit<LeagueSeat, 'lg'>): string {
  return JSON.stringify(seat);
}

/** A league cohort's counts: its participants, and how many moved up, down and stayed. */
export interface CohortCounts {
  n: number;
  p: number;
  d: number;
  s: number;
}

/** A league cohort's decision: the body of its `outcome` entry. */
export interface CohortDecision {
  t: string;
  ts: number;
  /** The board's id. */
  b: string;
  /** The run's first day (YYYY-MM-DD). */
  r: string;
  /** The cohort, '<tier>.<cohort>'. */
  c: string;
  k: CohortCounts;
  /** Each user's outcome, '<p|d|s>|<rank>|<value>', by user id. */
  o: Record<string, string>;
}

/** An `outcome` entry. */
export function outcomeEntry(decision: CohortDecision): string {
  return JSON.stringify(decision);
}

/** A `points` entry without its closing brace: the script adds the awards (`"pa"`). */
export function pointsEntryHead(tenant: string, userId: string, ts: number): string {
  return JSON.stringify({ t: tenant, u: userId, ts }).slice(0, -1);
}

/** An event as phase 2 needs it again (src/engine/durability/replay-phase2.ts): what the event's log entry holds. */
export interface LoggedEvent {
  t: string;
  u: string;
  m: string;
  d: string;
  ts: number;
  /** Points awards. */
  pa?: EventAward[];
  /** The streak as stored after an extension. */
  sx?: string;
  /** The user's pauses (`s:pz`) with an extension, when there are any. */
  sp?: string;
  /** '1': the user was excluded from the rankings (src/engine/fairplay/exclude.ts): placed nowhere. */
  ex?: string;
  /**
   * When an event sent with `occurredAt` arrived (ms; `ts` when it happened): the board runs final
   * by then it left as they were (src/domain/leaderboards/runs.ts finalThrough).
   */
  ra?: number;
  /** 1: an event of a history import (imported): it fills the runs final when it arrived. */
  im?: number;
}

/** Any entry's body, as the drainer and a restore read it. */
export type LogBody = Partial<Omit<LoggedEvent, 'sx'>> & {
  /** The event's id (an event, a `voided` entry). */
  e?: string;
  /**
   * An event, a `voided` entry: the user's zone the event was counted in; a streak operation (and
   * preferences that disable the streak): the zone its loss was worked out in ('' UTC; absent in
   * older entries).
   */
  z?: string;
  /** voided: the period of the metric's limit whose sum the value left ('<letter><index>'). */
  lp?: string;
  /** An event: the hour of the user's clock it counted in, when the clock held the user there. */
  h?: number;
  /** voided: the event's time (ms); voided, excluded: the reason given. */
  at?: number;
  why?: string;
  /** The event's value. */
  v?: number;
  /** An event a metric's limit bit: the part of its value that counted (lua/includes/limits.lua). */
  lc?: number;
  /** The event's idempotency key. */
  k?: string;
  /** An event: the batch item it is ('<batch id>:<index>'); a `batch` entry: the batch's id. */
  b?: string;
  /** A `batch` entry: its batch queue entry's id. */
  q?: string;
  /** The event's attributes. */
  a?: Record<string, string>;
  /** The identification's fields (user, achievement entries; an event's inline identification). */
  f?: Record<string, unknown>;
  /** freezes: how many were granted. */
  n?: number;
  /** pause: what was done, the pause's id and dates. */
  op?: 'add' | 'remove';
  id?: string;
  start?: string;
  end?: string;

  /** The api process that ran the event (src/engine/durability/liveness.ts). */
  p?: string;
  /** The achievements an event or an API completion completed. */
  ac?: string[];
  /** The streak as stored after the extension (lua/includes/streak.lua); an array in older logs. */
  sx?: string | [length: number, longest: number, period: number, freezes: number, tz: string];
};

/**
 * Whether an entry is an event of a history import, read without parsing it: its webhooks,
 * notifications and live updates are not made (docs/api.md, "History import"). The marker's text
 * cannot occur inside a string of the body, whose quotes JSON escapes.
 */
export function imported(kind: string, fields: string[]): boolean {
  return kind === 'event' && (fields[1] ?? '').includes(IMPORTED);
}

/**
 * An entry's body with the fields the script added after it put back in: the body as one JSON
 * object, as stored.
 */
export function entryBody(fields: string[]): string {
  let body = fields[1] ?? '{}';
  if (fields.length <= 2) return body;
  body = body.slice(0, body.lastIndexOf('}'));
  for (let i = 2; i + 1 < fields.length; i += 2) {
    // 'pa' and 'ac' are JSON already; 'sx' (and anything else) a string.
    const json = fields[i] === 'pa' || fields[i] === 'ac';
    body += `,${JSON.stringify(fields[i])}:${json ? fields[i + 1] : JSON.stringify(fields[i + 1])}`;
  }
  return `${body}}`;
}

/**
 * What an event entry says of its user's activity, read without parsing its body: the tenant, the
 * user id as the body's JSON text (a string literal), the local day, and the streak stored after
 * an extension (`sx`, a field of its own). The notifications' due index reads this of every event
 * (src/engine/notifications/due-index.ts), where JSON.parse of each body was most of its cost.
 */
export interface EventActivity {
  tenant: string;
  /** The user id as a JSON string literal, as eventEntry wrote it (JSON.stringify's text). */
  userJson: string;
  day: string;
  /** The packed streak after an extension; undefined when the event extended none. */
  sx: string | undefined;
}

/**
 * An event entry's activity (fields as XRANGE answers them), or null when its body is not in
 * eventEntry's form (an entry of an earlier version: parse it instead, activityOf).
 */
export function eventActivity(fields: string[]): EventActivity | null {
  const body = fields[1] ?? '';
  const t = body.indexOf(',"t":"');
  if (t < 0) return null;
  const tEnd = body.indexOf('"', t + 6);
  const u = tEnd + 1;
  if (tEnd < 0 || !body.startsWith(',"u":"', u)) return null;
  // The user id's literal (JSON.stringify's text: eventEntry wrote it) ends at the first quote no backslash escapes.
  let uEnd = u + 6;
  for (; uEnd < body.length; uEnd++) {
    const c = body.charCodeAt(uEnd);
    if (c === 0x22) break;
    if (c === 0x5c) uEnd++;
  }
  if (uEnd >= body.length) return null;
  const d = body.indexOf(',"d":"', uEnd);
  if (d < 0 || body.charCodeAt(d + 16) !== 0x22) return null;
  const userJson = body.slice(u + 5, uEnd + 1);
  let sx: string | undefined;
  for (let i = 2; i + 1 < fields.length; i += 2) if (fields[i] === 'sx') sx = fields[i + 1];
  if (sx === undefined && body.includes('"sx":')) return null;
  return { tenant: body.slice(t + 6, tEnd), userJson, day: body.slice(d + 6, d + 16), sx };
}

/** The activity a parsed event body shows (restores, and entries eventActivity does not read), or null. */
export function activityOf(e: LogBody): EventActivity | null {
  if (e.t === undefined || e.u === undefined || e.d === undefined) return null;
  return { tenant: e.t, userJson: JSON.stringify(e.u), day: e.d, sx: typeof e.sx === 'string' ? e.sx : undefined };
}

/** A completion of achievements the log shows (an event's or an API completion's; a backfill's is silent). */
export interface LoggedCompletion {
  tenant: string;
  userId: string;
  /** When, ms (the service's clock). */
  ts: number;
  achievementIds: string[];
}

/**
 * Whether an entry may complete achievements, judged without parsing it: an event that completed
 * some carries the field 'ac' (the script adds it after the body), an API completion writes it
 * into its body.
 */
export function mayComplete(kind: string, fields: string[]): boolean {
  if (kind === 'event') {
    for (let i = 2; i < fields.length; i += 2) if (fields[i] === 'ac') return true;
    return false;
  }
  return kind === 'achievement' && (fields[1] ?? '').includes('"ac":');
}


/** The completion an entry's body shows, or null (the body of an entry mayComplete took). */
export function completionOf(body: LogBody): LoggedCompletion | null {
  if (!Array.isArray(body.ac) || body.ac.length === 0 || body.t === undefined || body.u === undefined || body.ts === undefined) return null;
  return { tenant: body.t, userId: body.u, ts: body.ts, achievementIds: body.ac };
}

/**
 * Log entry ids (lua/includes/logAdd.lua) are unique across the installation: `<ms>-1<µs><p>`, the
 * microsecond within the ms in 3 digits and the partition in 5, a sequence of 10^8 or more. Ids
 * written before they carried the partition are `<ms>-<µs>` (a sequence below 10^8, unique within
 * their partition only), and so are those of a stream's own `*`.
 */
const PARTITIONED = 100_000_000;

/**
 * The arrival within its millisecond a log entry id's sequence (the part after the dash) says: the
 * microsecond, or past 999 where the log took the next id after one of the same microsecond.
 */
export function arrivalInMs(seq: string): number {
  const n = Number(seq);
  return n >= PARTITIONED ? Math.floor(n / 100_000) - 1000 : n;
}

/** The partition a log entry id names, or null for one written before ids carried it. */
export function partitionOfLogId(id: string): number | null {
  const n = Number(id.slice(id.indexOf('-') + 1));
  return n >= PARTITIONED ? n % 100_000 : null;
}

/** The id right after `id` (`<ms>-<seq>`): XTRIM MINID keeps ids from there on. */
export function nextStreamId(id: string): string {
  const dash = id.indexOf('-');
  return `${id.slice(0, dash)}-${BigInt(id.slice(dash + 1)) + 1n}`;
}

/** Compares two stream ids (`<ms>-<seq>`) by time, then sequence; '' comes before any. */
export function compareStreamIds(a: string, b: string): number {
  if (a === '' || b === '') return a === b ? 0 : a === '' ? -1 : 1;
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  if (am !== bm) return BigInt(am) < BigInt(bm) ? -1 : 1;
  return as === bs ? 0 : BigInt(as) < BigInt(bs) ? -1 : 1;
}

/** `a` if it comes before `b` in a stream (`<ms>-<seq>` ids), else `b`. */
export function earlierStreamId(a: string, b: string): string {
  return compareStreamIds(a, b) < 0 ? a : b;
}
