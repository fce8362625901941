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
import { fail } from '../lib/errors.js';
import type { QueuedItem } from './batches.js';

/** Items in one import request, at most. */
export const MAX_IMPORT_ITEMS = 10_000;

/**
 * The items a body holds, not checked yet: a JSON array's elements, or each non-blank line of
 * newline-delimited JSON parsed. A body that is neither is refused (invalid_body), naming the line.
 */
export function importItems(body: string | null): unknown[] {
  const text = body ?? '';
  const first = /\S/.exec(text);
  if (first === null) throw fail('invalid_body', 'the body is empty: send a JSON array of events, or one event a line (NDJSON)');
  if (first[0] === '[') {
    try {
      return JSON.parse(text) as unknown[];
    } catch {
      throw fail('invalid_body', 'the body is not valid JSON');
    }
  }
  const items: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (items.length === MAX_IMPORT_ITEMS) throw fail('invalid_body', `the body must hold 1 to ${MAX_IMPORT_ITEMS} events`);
    try {
      items.push(JSON.parse(line));
    } catch {
      throw fail('invalid_body', `line ${i + 1} is not valid JSON`);
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
