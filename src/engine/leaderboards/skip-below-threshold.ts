/**
 * The entry gate: phase 2 skipped where it could change nothing. A full ranking's lowest value goes
 * down only when a member's value does or a member leaves, and leaderboardRank counts both in the
 * ranking's falls counter, answering the threshold and the counter read together. So while the
 * counter still reads what it read with a threshold, the threshold can only have risen since.
 * An event that raised the user's value below that threshold then cannot enter (a newcomer must
 * beat the lowest value, or reach it before its holder did), and it moves no member: the user's
 * value before it was below the lowest value, so the user was off the ranking. Its placement would answer nothing and write
 * nothing, so the event path skips it (src/routes/app/events.ts).
 *
 * The counter is read after the event's phase 1 ran (its value exists then, and a placement would
 * come later still): on one Redis it leaves last in the batch of writes that carried phase 1, in
 * the same round trip, one read for every event of the batch; on a Cluster, where the board may
 * live on another node, once phase 1 has answered, and then only where the value is below the
 * threshold (a second round trip instead of the placement; a third, the placement, only when the
 * counter moved).
 *
 * Only for boards without breakdown, whose ranking the event path knows before phase 1 (see
 * gateable). Per configuration version: a new maximum is a new ranking.
 */
import { BoundedMap, perObject } from '../../lib/memo.js';
import type { Leaderboard } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { hasWindow } from '../../domain/leaderboards/runs.js';

/** What a placement learnt of a full ranking. */
export interface EntryCertificate {
  /** The lowest value of the full ranking. */
  threshold: number;
  /** The ranking's falls counter when the threshold was read. */
  falls: string;
}

const certificates = perObject((_: Snapshot) => new BoundedMap<string, EntryCertificate>(10_000));

/** What this process last learnt of a ranking's threshold, if it was full then. */
export function certificateOf(snapshot: Snapshot, ranking: string): EntryCertificate | undefined {
  return certificates(snapshot).get(ranking);
}

/**
 * Whether a placement on `lb` in `group` can be gated ([] without breakdown): metric boards, whose
 * value phase 1 answers (the total or the run's sum), and perpetual points boards, which rank the
 * system's total the awards carry. Not repeating points boards, nor those with a daily window
 * (their sum is worked out in phase 2), nor streak boards (a streak falls to nothing when lost),
 * nor a league's board (every placement places the user in their cohort too).
 */
export function gateable(lb: Leaderboard, group: string[]): boolean {
  return group.length === 0 && !lb.league && (lb.rankBy === 'metric' || (lb.rankBy === 'points' && lb.runUnit === null && !hasWindow(lb)));
}

/**
 * A certificate, the ranking's falls counter key, and the counter as read after the event's phase 1
 * ran (null: not read yet; undefined once read: the read failed). `read` is true once the read has
 * answered, with the counter in `value`.
 */
export interface Gate {
  certificate: EntryCertificate;
  key: string;
  falls: Promise<string | null | undefined> | null;
  read: boolean;
  value: string | null | undefined;
}

/** A gate for a ranking this process knows full, its counter not read yet. */
export function gateFor(certificate: EntryCertificate, key: string): Gate {
  return { certificate, key, falls: null, read: false, value: undefined };
}

/**
 * gatePasses without waiting: the answer when the value alone decides or the counter's read has
 * answered, else null.
 */
export function gatePassesNow(gate: Gate, value: number): boolean | null {
  // At the threshold it may still enter: a tie goes to whoever reached the value first.
  if (value >= gate.certificate.threshold) return false;
  if (!gate.read) return null;
  return gate.value !== undefined && (gate.value ?? '0') === gate.certificate.falls;
}

/**
 * Whether a placement that raised the user's value to `value` can be skipped: below the
 * threshold, and the counter still reads what it read with it. `read` reads the counter when it
 * was not read with phase 1 (on a Cluster): phase 1 has answered, so the read comes after it.
 */
export async function gatePasses(gate: Gate, value: number, read: (gate: Gate) => Promise<string | null | undefined>): Promise<boolean> {
  const now = gatePassesNow(gate, value);
  if (now !== null) return now;
  const falls = await (gate.falls ??= read(gate));
  return falls !== undefined && (falls ?? '0') === gate.certificate.falls;
}

export function learn(snapshot: Snapshot, ranking: string, threshold: string, falls: string): void {
  // '' when the ranking is not full: anyone enters.
  if (falls === '') certificates(snapshot).delete(ranking);
  else certificates(snapshot).set(ranking, { threshold: Number(threshold), falls });
}
