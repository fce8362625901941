/** Figures in words, as the pages show them: a count with its noun, a bucket of points or of a streak's length, a board's runs. */

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

/** A board's runs: "one run", "weekly", "every 3 days", "monthly", "every 2 years". */
export function runsOf(b: { runUnit?: string; runInterval?: number }): string {
  if (b.runUnit === undefined) return 'one run';
  const n = b.runInterval ?? 1;
  if (b.runUnit === 'day' && n === 7) return 'weekly';
  if (n === 1) return b.runUnit === 'day' ? 'daily' : b.runUnit === 'month' ? 'monthly' : 'yearly';
  return `every ${count(n, b.runUnit)}`;
}
