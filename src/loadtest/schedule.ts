/**
 * The open loop's schedule: when request `i` is due, ms after the start, whatever became of the
 * ones before it. A fixed rate spaces requests evenly; a ramp moves the rate linearly from one
 * value to another over the run (the rate at time t is `from + (to - from) t / T`, so the requests
 * due by t are its integral, `from t + (to - from) t² / 2T`, and request i is due at the root of
 * that equal to i). Several generator processes share one schedule: process w of n sends the
 * requests i with i mod n = w, so together they send it exactly.
 */
export interface Schedule {
  /** Requests per second at the start and at the end (equal for a fixed rate). */
  from: number;
  to: number;
  durationS: number;
}

/** How many requests the schedule holds. */
export function scheduledTotal(s: Schedule): number {
  return Math.max(0, Math.floor(((s.from + s.to) / 2) * s.durationS + 1e-9));
}

/** Request `i`'s due time in ms from the start. */
export function dueAt(s: Schedule, i: number): number {
  if (s.from === s.to) return (i * 1000) / s.from;
  const T = s.durationS;
  const a = (s.to - s.from) / (2 * T);
  // a t² + from t - i = 0, the root at or above 0 (a may be negative: a falling ramp), written so
  // that it does not lose precision when a is small.
  const t = (2 * i) / (s.from + Math.sqrt(s.from * s.from + 4 * a * i));
  return t * 1000;
}

/** The rate the schedule asks for at `ms` after the start (requests per second). */
export function rateAt(s: Schedule, ms: number): number {
  return s.from + ((s.to - s.from) * Math.min(ms / 1000, s.durationS)) / s.durationS;
}

/** The requests scheduled in second `k` (from k s to k + 1 s after the start). */
export function scheduledInSecond(s: Schedule, k: number): number {
  const upTo = (t: number) => {
    const c = Math.min(t, s.durationS);
    return Math.min(scheduledTotal(s), Math.ceil(s.from * c + ((s.to - s.from) * c * c) / (2 * s.durationS) - 1e-9));
  };
  return Math.max(0, upTo(k + 1) - upTo(k));
}
