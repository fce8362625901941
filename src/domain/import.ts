/**
 * A history import (docs/api.md, "History import"): a team's past events, each a batch item with
 * its `occurredAt` of any age, applied by the workers in the order they happened, as a batch's
 * items are (src/engine/batches/process.ts), without telling anyone: their log entries are marked
 * (src/model/log.ts imported), so no webhook, notification or live update comes of them.
 *
 * The body is a JSON array of items or newline-delimited JSON (one item a line, blank lines
 * skipped), told apart by its first character; at most MAX_IMPORT_ITEMS items a request (the
 * command line, src/import/command.ts, cuts a file into such parts, in order).
 */
import { fail, HttpError } from '../lib/errors.js';
import type { QueuedItem } from './batches.js';

/** Items in one import request, at most. */
export const MAX_IMPORT_ITEMS = 10_000;

/**
 * The items a body holds, not checked yet: a JSON array's elements, or each non-blank line of
 * newline-delimited JSON, each parsed by `parse` (the API's strict JSON: src/http/validate.ts
 * parseJson, whose refusal then names the line). An empty body is refused (invalid_body).
 */
export function importItems(body: string | null, parse: (text: string) => unknown): unknown {
  const text = body ?? '';
  const first = /\S/.exec(text);
  if (first === null) throw fail('invalid_body', 'the body is empty: send a JSON array of events, or one event a line (NDJSON)');
  if (first[0] === '[') return parse(text);
  const items: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (items.length === MAX_IMPORT_ITEMS) throw fail('invalid_body', `the body must hold 1 to ${MAX_IMPORT_ITEMS} events`);
    try {
      items.push(parse(line));
    } catch (err) {
      if (err instanceof HttpError) err.message = `Line ${i + 1}: ${err.message}`;
      throw err;
    }
  }
  return items;
}

/**
 * The items in the order they happened (their `o`), those of one instant in the order sent: each
 * user's events are then applied as they happened.
 */
export function inOccurrenceOrder(items: readonly QueuedItem[]): QueuedItem[] {
  return [...items].sort((a, b) => (a.o ?? 0) - (b.o ?? 0) || a.i - b.i);
}
