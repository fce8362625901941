/**
 * Logged events found by their ids, for voiding them (src/engine/fairplay/void.ts). An event's
 * id is random (the event's answer gave it), so it says nothing of where its entry is: first the
 * partitions' logs in Redis (what the archive may not hold yet; every partition's, or the user's
 * one when the caller names the user), then the Postgres archive (src/postgres/event-lookup.ts),
 * read once for all the ids Redis did not hold. The archive holds every entry drained, until
 * `LAUREL_LOG_RETENTION_DAYS` deletes it and for as long as the user is not erased (their lines
 * are redacted). Only entries of the tenant asked are found.
 */
import { UUID_PATTERN } from '../../domain/ids.js';
import { entryBody, type LogBody } from '../../model/log.js';
import { archivedEvents } from '../../postgres/event-lookup.js';
import type { Context } from '../context.js';

/** An event entry as found: its log entry id and its body. */
export interface FoundEvent {
  entryId: string;
  body: LogBody;
}

/** The event ids this looks up: UUIDs (the event path makes them with randomUUID). */
export const EVENT_ID = UUID_PATTERN;

/** How many partitions' logs are read at once. */
const PARALLEL = 32;

/** An event entry's id, read from its body's start (src/model/log.ts eventEntry writes it first). */
function idOf(body: string): string {
  return body.startsWith('{"e":"') ? body.slice(6, 42) : '';
}

/**
 * The events of `wanted` (ids, each optionally with its user) in `tenant`, by id; an id not found
 * is not in the answer.
 */
export async function findEvents(
  deps: Pick<Context, 'redis' | 'keys' | 'settings' | 'postgres'>, tenant: string, wanted: Map<string, string | undefined>,
): Promise<Map<string, FoundEvent>> {
  const { redis, keys } = deps;
  const found = new Map<string, FoundEvent>();
  const take = (entryId: string, body: LogBody, eventId: string) => {
    const user = wanted.get(eventId);
    if (body.t === tenant && (user === undefined || body.u === user)) found.set(eventId, { entryId, body });
  };
  if (wanted.size === 0) return found;
  const named = [...wanted.values()];
  const partitions = named.every((u) => u !== undefined)
    ? [...new Set(named.map((u) => keys.partitionOf(tenant, u!)))]
    : Array.from({ length: keys.partitions }, (_, p) => p);
  for (let i = 0; i < partitions.length; i += PARALLEL) {
    const logs = await Promise.all(partitions.slice(i, i + PARALLEL).map((p) => redis.xrange(keys.partitionLog(p), '-', '+') as Promise<[string, string[]][]>));
    for (const entries of logs) {
      for (const [entryId, fields] of entries) {
        if (fields[0] !== 'event') continue;
        const eventId = idOf(fields[1] ?? '');
        if (wanted.has(eventId)) take(entryId, JSON.parse(entryBody(fields)) as LogBody, eventId);
      }
    }
  }
  const missing = [...wanted.keys()].filter((id) => !found.has(id));
  if (missing.length === 0) return found;
  // One statement for them all: each reads the archive through (src/postgres/event-lookup.ts).
  const users = missing.map((id) => wanted.get(id));
  const only = users.every((u) => u !== undefined) ? [...new Set(users.map((u) => keys.partitionOf(tenant, u!)))] : null;
  const lines = await archivedEvents(await deps.postgres(), deps.settings.prefix, missing, only);
  for (const [eventId, line] of lines) take(line.id, JSON.parse(line.body) as LogBody, eventId);
  return found;
}
