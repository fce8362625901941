/**
 * Figures in words, as the pages show them: a count with its noun, a bucket of points or of a
 * streak's length, a board's runs and what it ranks, a moment or a day in the browser's locale, a
 * type's snake_case name, how many a board ranks.
 */

/** "1 user", "3 users". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/** A range of points totals: "no points", "exactly 5 points", "1 to 100 points". */
export function pointsRange(r: { from: number; to: number }): string {
  if (r.from === r.to) return r.from === 0 ? 'no points' : `exactly ${count(r.from, 'point')}`;
  return `${r.from.toLocaleString('en')} to ${r.to.toLocaleString('en')} points`;
}

/** A range of streak lengths in the streak's periods: "1 day", "2 to 3 days", "366 days or more". */
export function streakRange(b: { from: number; to: number | null }, period: string): string {
  if (b.to === null) return `${count(b.from, period)} or more`;
  return b.from === b.to ? count(b.from, period) : `${b.from} to ${count(b.to, period)}`;
}

/** The unit of a streak's period: "day" for a daily streak. */
export function periodOf(frequency: string): string {
  return frequency === 'weekly' ? 'week' : frequency === 'monthly' ? 'month' : 'day';
}

/** How many a board ranks: "the top 100", "every participant" (a board without a cap), "…, in 3 shards". */
export function sizeOf(b: { maxParticipants: number | null; shards?: number; league?: { cohortSize: number; tiers: unknown[] } }): string {
  const tiers = b.league?.tiers.length ?? 0;
  const size = b.league !== undefined ? `a league: ${tiers} tier${tiers === 1 ? '' : 's'}, cohorts of ${b.league.cohortSize}`
    : b.maxParticipants === null ? 'every participant' : `the top ${b.maxParticipants.toLocaleString('en')}`;
  return b.shards !== undefined && b.shards > 1 ? `${size}, in ${b.shards} shards` : size;
}

/** A board's runs: "one run", "weekly", "every 3 days", "monthly", "every 2 years". */
export function runsOf(b: { runUnit?: string; runInterval?: number }): string {
  if (b.runUnit === undefined) return 'one run';
  const n = b.runInterval ?? 1;
  if (b.runUnit === 'day' && n === 7) return 'weekly';
  if (n === 1) return b.runUnit === 'day' ? 'daily' : b.runUnit === 'month' ? 'monthly' : 'yearly';
  return `every ${count(n, b.runUnit)}`;
}

/**
 * What a board ranks, by name: "the total of Lessons" (a perpetual metric board), "the sum of
 * Lessons in each run" (a repeating one), "points of XP gained in each run", "the sum of Lessons
 * from 18:00 to 22:00 each day, since its start", "their streak's length"; "in groups by Plan" on a
 * board with breakdown attributes. `name` names a metric, points system or attribute by its id.
 */
export function ranksOf(b: {
  rankBy: string; metricId?: string | null; pointsSystemId?: string | null; runUnit?: string; startTime?: string; endTime?: string;
  breakdownAttributes: string[];
}, name: (id: string) => string): string {
  const window = b.startTime !== undefined || b.endTime !== undefined ? ` from ${b.startTime ?? '00:00'} to ${b.endTime ?? '24:00'} each day` : '';
  const span = b.runUnit !== undefined ? ' in each run' : window !== '' ? ', since its start' : '';
  const what = b.rankBy === 'streak' ? 'their streak\'s length'
    : b.rankBy === 'points' ? `points of ${name(b.pointsSystemId ?? '')}${span === '' && window === '' ? '' : ` gained${window}${span}`}`
      : span === '' && window === '' ? `the total of ${name(b.metricId ?? '')}` : `the sum of ${name(b.metricId ?? '')}${window}${span}`;
  const groups = b.breakdownAttributes.map(name).join(' and ');
  return groups === '' ? what : `${what}, in groups by ${groups}`;
}

/** A moment (an ISO-8601 time) for a person, in the browser's locale and zone: "Mar 4, 2026, 1:00 PM". */
export function moment(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A change of a count with its sign: "+10", "-20", "+0". */
export function signed(n: number): string {
  return `${n < 0 ? '-' : '+'}${Math.abs(n).toLocaleString('en')}`;
}

/** A type's snake_case name in words: "achievement_completed" is "achievement completed". */
export function typeWords(type: string): string {
  return type.replace(/_/g, ' ');
}
