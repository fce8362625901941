/**
 * The steady-state workload's draw (bench/README.md, "The steady-state workload"): who sends each
 * event of an installation that has run for a while. A share `newShare` of events comes from a user
 * never seen before; the rest from the population of `population` users made before the load
 * (bench/steady-population.ts), drawn by a power law over their ranks, so a few users send much
 * and most send little, as in an app's traffic:
 *
 *     rank = floor(population × r^skew)      r uniform in [0, 1) (bench/random.ts)
 *
 * P(rank < k) = (k / population)^(1 / skew): with skew 2, the most active 1% of the users send 10%
 * of the returning users' events, the most active quarter half of them, and user-0 one in a
 * thousand at a million users. The population's history is drawn from the same law
 * (bench/steady-population.ts), so the users who send most today also have the longest streaks and
 * the highest totals.
 *
 * bench/wrk/steady.lua draws the same way from the same generator: mulberry32 of bench/random.ts,
 * one draw for new-or-returning, one for the rank, seeded per wrk thread with `seed + thread`.
 */

/** The share of events from users never seen before. */
export const STEADY_NEW_SHARE = 0.03;

/** The power law's exponent: 2, the most active 1% of the users send 10% of the events. */
export const STEADY_SKEW = 2;

/** A rank of the population by the power law (rank 0 the most active). */
export function drawRank(population: number, skew: number, random: () => number): number {
  return Math.min(population - 1, Math.floor(population * random() ** skew));
}

/**
 * One event's sender: -1 for a new user (share `newShare`), else a returning user's rank (their id
 * `user-<rank>`). Two draws every time, as bench/wrk/steady.lua draws them.
 */
export function drawSteady(population: number, newShare: number, skew: number, random: () => number): number {
  const fresh = random() < newShare;
  const rank = drawRank(population, skew, random);
  return fresh ? -1 : rank;
}
