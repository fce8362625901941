/**
 * How an erased user's lines of the archived log are rewritten (src/postgres/erasure.ts): their
 * own entries become `redacted` entries that keep what holds no personal data (the kind, the time,
 * the metric, the value, the local day; a league seat's board, run, cohort and tier count) and
 * name the erasure (`x`) instead of the user; the
 * entries of others that list the user (a finalised run's winners, those below them moved up; a
 * batch's items; a league cohort's decision) lose them.
 * A restore replays no `redacted` entry (src/engine/durability/restore.ts).
 */
import { winnersWithout, type RankedWinner } from './leaderboards/winners.js';

/** The user an erasure removes, and the erasure that stands in for them. */
export interface ErasedUser {
  tenant: string;
  userId: string;
  erasureId: string;
  /**
   * What else named them when the erasure was asked for: strings of the entries about them that
   * hold one of these are rewritten too.
   */
  profile?: ErasedProfile;
}

/** A user's email, name and device tokens, as their erasure found them. */
export interface ErasedProfile {
  email: string | null;
  name: string | null;
  tokens: string[];
}

/** The profile as an erasure's record keeps it while pending (the user hash's `email`, `name`, `dt`). */
export function profileOf(email: string | null, name: string | null, dt: string | null): ErasedProfile {
  let tokens: string[] = [];
  try {
    const parsed = dt === null ? [] : JSON.parse(dt) as unknown;
    if (Array.isArray(parsed)) tokens = parsed.filter((t): t is string => typeof t === 'string' && t !== '');
  } catch {
    tokens = [];
  }
  return { email: email || null, name: name || null, tokens };
}

/**
 * The values that are the user's when a whole text is one of them: their name. (Their id names
 * them where an object of theirs holds it: src/domain/audit.ts withoutUser; a metric's key that
 * reads as it is not theirs.)
 */
export function exactNeedlesOf(who: ErasedUser): string[] {
  const name = who.profile?.name ?? null;
  return name === null ? [] : [name];
}

/** The texts that are the user's wherever they stand in a text: their email and device tokens. */
export function containedNeedlesOf(who: ErasedUser): string[] {
  const p = who.profile;
  return p === undefined ? [] : [p.email, ...p.tokens].filter((n): n is string => n !== null && n !== '');
}

/** The texts that tell an entry is about the user: their id (as JSON), email and device tokens (a name alone is no sign). */
export function marksOf(who: ErasedUser): string[] {
  return [JSON.stringify(who.userId), ...containedNeedlesOf(who)];
}

/** The kind of an erased user's entries, once rewritten. */
export const REDACTED_KIND = 'redacted';
/** The kind of the entry an erasure appends to the user's partition's log. */
export const ERASED_KIND = 'erased';

type Body = Record<string, unknown>;

/** What a redacted entry keeps of the user's entry (of any user of a tenant erased whole). */
export function redactedBody(kind: string, e: Body, who: Pick<ErasedUser, 'tenant' | 'erasureId'>): Body {
  const out: Body = { t: who.tenant, ts: e.ts, x: who.erasureId, k: kind };
  if (kind === 'event') {
    out.m = e.m;
    out.v = e.v;
    out.d = e.d;
  }
  // A league seat: the seat stays taken (an erased user's seat is given to nobody), so a restore
  // still counts it in its tier (src/engine/durability/league-seats.ts).
  if (kind === 'league') {
    out.b = e.b;
    out.r = e.r;
    out.c = e.c;
    out.n = e.n;
  }
  return out;
}

/** A finalised run's winners without the user (those below them moved up), or null when they were none of them. */
function withoutWinner(e: Body, who: ErasedUser): Body | null {
  const w = e.w as Record<string, RankedWinner[]> | undefined;
  if (w === undefined || w === null) return null;
  let changed = false;
  const kept: Record<string, RankedWinner[]> = {};
  for (const [group, winners] of Object.entries(w)) {
    const without = winnersWithout(winners, who.userId);
    kept[group] = without ?? winners;
    if (without !== null) changed = true;
  }
  return changed ? { ...e, w: kept } : null;
}

/** A league cohort's decision without the user's outcome (the counts stay), or null when it had none. */
function withoutOutcome(e: Body, who: ErasedUser): Body | null {
  const o = e.o as Record<string, string> | undefined;
  if (o === undefined || o === null || typeof o !== 'object' || !Object.hasOwn(o, who.userId)) return null;
  const kept = Object.fromEntries(Object.entries(o).filter(([userId]) => userId !== who.userId));
  return { ...e, o: kept };
}

/** A batch's items without the user's, or null when it had none. */
function withoutItems(e: Body, who: ErasedUser): Body | null {
  const items = e.i as { u?: { id?: string } }[] | undefined;
  if (!Array.isArray(items)) return null;
  const kept = items.filter((x) => x.u?.id !== who.userId);
  return kept.length === items.length ? null : { ...e, i: kept };
}

/** A line of the archive (`<id>\t<kind>\t<body>`) rewritten for the erasure, or null when it stays. */
export function redactLine(line: string, who: ErasedUser): string | null {
  const tab = line.indexOf('\t');
  const tab2 = line.indexOf('\t', tab + 1);
  if (tab < 0 || tab2 < 0) return null;
  const id = line.slice(0, tab);
  const kind = line.slice(tab + 1, tab2);
  let e: Body;
  try {
    e = JSON.parse(line.slice(tab2 + 1)) as Body;
  } catch {
    return null;
  }
  if (e === null || typeof e !== 'object' || e.t !== who.tenant) return null;
  if (e.u === who.userId) return `${id}\t${REDACTED_KIND}\t${JSON.stringify(redactedBody(kind, e, who))}`;
  const changed = kind === 'finalised' ? withoutWinner(e, who) : kind === 'batch' ? withoutItems(e, who)
    : kind === 'outcome' ? withoutOutcome(e, who) : null;
  return changed === null ? null : `${id}\t${kind}\t${JSON.stringify(changed)}`;
}

/** The archive's lines (joined by '\n') rewritten, with how many changed; null when none did. */
export function redactLines(lines: string, who: ErasedUser): { lines: string; changed: number } | null {
  let changed = 0;
  const out = lines.split('\n').map((line) => {
    const r = redactLine(line, who);
    if (r === null) return line;
    changed++;
    return r;
  });
  return changed === 0 ? null : { lines: out.join('\n'), changed };
}
