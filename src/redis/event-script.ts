/**
 * The boundary of the event scripts (lua/recordEvent-4.lua, lua/recordEventPlan-3.lua): their
 * arguments, and their answer for a processed event.
 */

/** A processed event as the event scripts answer it (lua/recordEventPlan-3.lua, "Returns"). */
export interface Processed {
  /** The metric's total, as Redis holds it. */
  total: string;
  created: boolean;
  /** The streak as stored, its pauses, and '1' when this event extended it. */
  streak: [string, string, string];
  /** The points awarded (EventAward[] as JSON), or ''. */
  awards: string;
  /** The ids of the achievements this event completed, comma-separated, or ''. */
  completed: string;
  /** The id of the event's log entry: phase 2 keeps the user's latest event's value by it. */
  seq: string;
  /** The run sums and breakdown attribute values asked for (JSON array of strings), or ''. */
  boards: string;
  /** The breakdown attributes the event's identification changed, with their old values (JSON), or ''. */
  moved: string;
}

/**
 * Splits the scripts' answer: nine fields, separated by newlines, the last one JSON; a tenth (JSON)
 * when the identification moved the user's breakdown attributes.
 */
export function processedOf(reply: string): Processed {
  const f = reply.split('\n', 8);
  let boardsAt = 8;
  for (const field of f) boardsAt += field.length;
  const movedAt = reply.indexOf('\n', boardsAt);
  return {
    total: f[0], created: f[1] === '1', streak: [f[2], f[3], f[4]], awards: f[5], completed: f[6], seq: f[7],
    boards: movedAt < 0 ? reply.slice(boardsAt) : reply.slice(boardsAt, movedAt), moved: movedAt < 0 ? '' : reply.slice(movedAt + 1),
  };
}

/**
 * recordEventPlan's arguments after its keys, without the trailing empty ones when no
 * identification pairs follow: Redis builds ARGV element by element into a table that doubles as
 * it grows.
 */
export function eventPlanArgs(
  small: string, creation: string, entry: string, idempotency: string, planFull: string, boosts: string, pairs: string[],
): string[] {
  if (pairs.length > 0) return [small, creation, entry, idempotency, planFull, boosts, ...pairs];
  if (boosts !== '') return [small, creation, entry, idempotency, planFull, boosts];
  if (planFull !== '') return [small, creation, entry, idempotency, planFull];
  if (idempotency !== '') return [small, creation, entry, idempotency];
  return [small, creation, entry];
}
