/**
 * How the api processes tell the workers which live topics their sockets hold
 * (src/engine/live/fanout.ts writes, src/engine/live/wanted.ts reads):
 * - a hold, the want set's member: `<holder>|<scoped topic>`, the holder an api process's id;
 * - a ring, a line on the interest channel: `+<n>|<hold>` for a topic taken up, `-<n>|<hold>`
 *   for one let go, `n` counting the holder's rings (a later ring has a larger one).
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
export const ringOf = (take: boolean, n: number, hold: string): string => `${take ? '+' : '-'}${n}|${hold}`;

export interface Ring {
  take: boolean;
  n: number;
  /** The hold: `<holder>|<scoped>`. */
  member: string;
  holder: string;
  scoped: string;
}

/** A ring's line read, or null for a line of another form. */
export function parseRing(line: string): Ring | null {
  const sign = line[0];
  const bar = line.indexOf('|');
  if ((sign !== '+' && sign !== '-') || bar < 2) return null;
  const digits = line.slice(1, bar);
  const n = /^\d+$/.test(digits) ? Number(digits) : NaN;
  const member = line.slice(bar + 1);
  const held = holderOf(member);
  if (!Number.isSafeInteger(n) || held === null) return null;
  return { take: sign === '+', n, member, ...held };
}
