/**
 * What the scripts answer besides their results: domain outcomes as small negative codes, and the
 * few positive ones. Each script's header says which of them it answers.
 */
export const ScriptCode = {
  /** accruePoints: the awards due were made. */
  DONE: 1,
  /** recordEvent, recordEventPlan: an idempotency key already used; the event's first answer follows. */
  REPLAYED: 2,
  /** recordEvent, recordEventPlan: the user's stored zone is another (it follows). */
  TZ_MISMATCH: -1,
  /** upsertUser, completeAchievement, recordEvent, recordEventPlan: a subscription asked for without an email. */
  SUBSCRIBE_WITHOUT_EMAIL: -2,
  /** upsertUser, configPut: what is to be created exists. */
  EXISTS: -3,
  /** An unknown user (or configuration entity): nothing changed. */
  NOT_FOUND: -4,
  /** configPut: another entity holds the unique name. */
  DUPLICATE: -5,
  /** completeAchievement: the user's attributes do not match the achievement's filter. */
  FILTERED_OUT: -6,
  /** recordEvent, recordEventPlan: the user's clock is not the one the api assumed (it follows: src/domain/clock.ts). */
  CLOCK: -7,
  /** A points trigger refuses to take a total below 0 (blockIfOutOfPoints): nothing changed. */
  OUT_OF_POINTS: -8,
  /** A time trigger's award is due: the api accrues it, then sends the event again. */
  TIME_DUE: -9,
  /** The event script does not hold the plan it was sent the id of: send it in full. */
  PLAN_UNKNOWN: -10,
  /** The metric's total would leave a double's range (about ±1.8e308): nothing changed. */
  TOTAL_OUT_OF_RANGE: -11,
  /** recordEvent, recordEventPlan: the user's streak preferences are not the ones the plan was made from (token and them follow). */
  STREAK_PREFERENCES: -12,
  /** recordEventPlan: the user's next anniversary has come (or was never worked out): the api completes it, then sends the event again. */
  ANNIVERSARY_DUE: -13,
  /** accruePoints, anniversaryNext: another process wrote what the api read meanwhile; nothing written (read again). */
  MOVED: -14,
  /** restoreStreak: the streak is already at the longest length of the window. */
  AT_MAXIMUM: -15,
  /** batchTake: another worker holds the partition's lease. */
  LEASE_HELD: -16,
  /** recordEvent, recordEventPlan: a metric trigger's award would take a points total past 2^53 - 1: nothing changed. */
  POINTS_OUT_OF_RANGE: -17,
  /** recordEventRun: an event's body raised an error of Redis (the answers of the events before it follow). */
  RUN_FAILED: -18,
  /** recordEvent, recordEventPlan: a batch item accepted before its user's erasure (lua/includes/fence.lua): nothing changed. */
  ERASED: -19,
} as const;

/**
 * The codes by which a script refuses what a client asked, writing nothing: each is answered as one
 * error, built in one place (src/engine/script-errors.ts). The other codes are outcomes their caller
 * acts on (sends again, replays, reads again, waits) or reports item by item in a bulk answer
 * (configPut's DUPLICATE, restoreStreak's AT_MAXIMUM).
 */
export const REFUSALS = [
  ScriptCode.SUBSCRIBE_WITHOUT_EMAIL,
  ScriptCode.EXISTS,
  ScriptCode.NOT_FOUND,
  ScriptCode.FILTERED_OUT,
  ScriptCode.OUT_OF_POINTS,
  ScriptCode.TOTAL_OUT_OF_RANGE,
  ScriptCode.POINTS_OUT_OF_RANGE,
] as const;

/** A code of REFUSALS. */
export type Refusal = (typeof REFUSALS)[number];
