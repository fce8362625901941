/**
 * Entries of a partition's event log (a Redis stream, one field per entry): built here as JSON so
 * the Lua script appends one prepared string, which keeps XADD cheap on the hot path. The log
 * drainer and phase-2 replays read them back.
 *
 *   event  {"e": eventId, "t": tenant, "u": userId, "m": metricId, "v": value, "ts": ms,
 *           "d": local day, "p": the api process, "k"?: idempotency key, "a"?: event attributes}
 *   user   {"t": tenant, "u": userId, "ts": ms, "f": the identification's fields}
 */

export interface EventEntry {
  eventId: string;
  tenant: string;
  userId: string;
  metricId: string;
  /** A JSON number, as sent to Redis. */
  value: string;
  ts: number;
  day: string;
  idempotencyKey: string;
  /** Event attributes as JSON; '' when none. */
  attributesJson: string;
  /** The api process (src/engine/liveness.ts). */
  processId: string;
}

export function eventEntry(e: EventEntry): string {
  let s = `{"e":"${e.eventId}","t":"${e.tenant}","u":${JSON.stringify(e.userId)},"m":"${e.metricId}",` +
    `"v":${e.value},"ts":${e.ts},"d":"${e.day}","p":"${e.processId}"`;
  if (e.idempotencyKey !== '') s += `,"k":${JSON.stringify(e.idempotencyKey)}`;
  if (e.attributesJson !== '') s += `,"a":${e.attributesJson}`;
  return s + '}';
}

export function userEntry(tenant: string, userId: string, ts: number, fields: Record<string, unknown>): string {
  return JSON.stringify({ t: tenant, u: userId, ts, f: fields });
}
