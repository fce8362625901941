/**
 * How the api processes tell the workers which live topics their sockets hold
 * (src/engine/live/fanout.ts writes, src/engine/live/wanted.ts reads):
 * - a hold, the want set's member: `<holder>|<scoped topic>`, the holder an api process's id;
 * - a ring: `+<n>|<at>|<hold>` for a topic taken up, `-<n>|<at>|<hold>` for one let go, `n`
 *   counting the holder's rings (a later ring has a larger one), `at` when the holder took it up or
 *   let it go (ms, its clock);
 * - a message on the interest channel: its rings as a JSON array of strings (ringsMessage), since a
 *   topic may hold any character a user id may, a line break too. A message of lines (an api
 *   process of an earlier version) is read too.
 * A process id holds no `|`; a scoped topic may (src/engine/live/topic-store.ts scopedTopic).
 */

/** The want set's member for a holder's topic. */
export const holdOf = (holder: string, scoped: string): string => `${holder}|${scoped}`;

/** A hold's holder and topic, or null for a member of another form. */
export function holderOf(member: string): { holder: string; scoped: string } | null {
  const bar = member.indexOf('|');
  if (bar <= 0 || bar === member.length - 1) return null;
  return { holder: member.slice(0, bar), scoped: member.slice(bar + 1) };
}

/** One ring's line. */
export const ringOf = (take: boolean, n: number, at: number, hold: string): string => `${take ? '+' : '-'}${n}|${at}|${hold}`;

/** The interest channel's message of `rings`. */
export const ringsMessage = (rings: string[]): string => JSON.stringify(rings);

/** The rings of an interest channel's message: a JSON array of strings, or lines; what is neither is none. */
export function ringsOf(text: string): string[] {
  if (!text.startsWith('[')) return text.split('\n');
  try {
    const rings = JSON.parse(text) as unknown;
    return Array.isArray(rings) ? rings.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

export interface Ring {
  take: boolean;
  n: number;
  /** When (ms, the holder's clock). */
  at: number;
  /** The hold: `<holder>|<scoped>`. */
  member: string;
  holder: string;
  scoped: string;
}

/** A ring's line read, or null for a line of another form. */
export function parseRing(line: string): Ring | null {
  const sign = line[0];
  const bar = line.indexOf('|');
  const bar2 = line.indexOf('|', bar + 1);
  if ((sign !== '+' && sign !== '-') || bar < 0 || bar2 < 0) return null;
  const n = whole(line.slice(1, bar));
  const at = whole(line.slice(bar + 1, bar2));
  const member = line.slice(bar2 + 1);
  const held = holderOf(member);
  if (n === null || at === null || held === null) return null;
  return { take: sign === '+', n, at, member, ...held };
}

/** A whole number written in digits, or null. */
function whole(digits: string): number | null {
  const n = /^\d+$/.test(digits) ? Number(digits) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}
