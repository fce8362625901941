/**
 * A board's score distribution (`GET /admin/v1/leaderboards/{id}/stats`): the values from the
 * lowest to the highest, in at most BUCKETS buckets of one width. Each bucket holds the values
 * `from ≤ value < to`, the last one `to` too. Whole values get whole widths (values 1 to 7: seven
 * buckets of one), others a tenth of the range.
 */

/** Buckets at most. */
export const BUCKETS = 10;

/** A bucket's bounds: `from ≤ value < to` (the last also `to`). */
export interface Bucket {
  from: number;
  to: number;
}

/** The buckets from `lowest` to `highest` (both values a ranking holds). */
export function bucketsOf(lowest: number, highest: number): Bucket[] {
  if (Number.isInteger(lowest) && Number.isInteger(highest)) {
    const width = Math.max(1, Math.ceil((highest - lowest + 1) / BUCKETS));
    const buckets: Bucket[] = [];
    for (let from = lowest; from <= highest; from += width) buckets.push({ from, to: from + width });
    // The last holds `to` as well: it ends at the highest value.
    buckets[buckets.length - 1].to = highest;
    return buckets;
  }
  if (lowest === highest) return [{ from: lowest, to: highest }];
  const width = (highest - lowest) / BUCKETS;
  return Array.from({ length: BUCKETS }, (_, i) => ({ from: lowest + i * width, to: i === BUCKETS - 1 ? highest : lowest + (i + 1) * width }));
}
