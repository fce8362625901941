/**
 * A history file for `laurel import` (src/import/command.ts): NDJSON or a JSON array of batch items,
 * each with its `occurredAt`, read whole, put in the order the events happened (those of one
 * instant in the file's order) and cut into parts of at most MAX_IMPORT_ITEMS items and `maxBytes`
 * bytes of NDJSON, the requests `POST /admin/v1/import` takes (docs/api.md, "History import").
 */
import { readFile } from 'node:fs/promises';
import { instantOf } from '../domain/event-time.js';
import { MAX_IMPORT_ITEMS } from '../domain/import.js';

/**
 * One item of the file: where it is (its line of NDJSON, from 1, or its index in a JSON array,
 * from 0: whereOf), its NDJSON line, when it happened. A million of them are held at once: kept
 * small.
 */
export interface HistoryItem {
  n: number;
  json: string;
  at: number;
}

/** A file's items, and whether they are lines of NDJSON or items of a JSON array. */
export interface History {
  kind: 'line' | 'item';
  items: HistoryItem[];
}

/** Where an item is in its file, as a message says it: `line 3`, `item 3`. */
export function whereOf(kind: History['kind'], item: Pick<HistoryItem, 'n'>): string {
  return `${kind} ${item.n}`;
}

/** A part sent as one import: its items, in the order they happened. */
export type Part = readonly HistoryItem[];

export class HistoryError extends Error {}

/** When an item of the file happened, its `occurredAt` read (the server checks the rest). */
function atOf(value: unknown, where: () => string): number {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HistoryError(`${where()} is not an event (a JSON object)`);
  const occurredAt = (value as { occurredAt?: unknown }).occurredAt;
  if (occurredAt === undefined) throw new HistoryError(`${where()}: occurredAt is missing`);
  const at = typeof occurredAt === 'string' ? instantOf(occurredAt) : null;
  if (at === null) throw new HistoryError(`${where()}: occurredAt must be an ISO 8601 date and time with an offset or Z`);
  return at;
}

/** The file's items in the order they happened. */
export async function readHistory(path: string): Promise<History> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new HistoryError(`${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const items: HistoryItem[] = [];
  const kind = /^\s*\[/.test(text) ? 'item' : 'line';
  if (kind === 'item') {
    let array: unknown;
    try {
      array = JSON.parse(text);
    } catch {
      throw new HistoryError(`${path} is not valid JSON`);
    }
    (array as unknown[]).forEach((v, n) => items.push({ n, json: JSON.stringify(v), at: atOf(v, () => whereOf(kind, { n })) }));
  } else {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new HistoryError(`line ${i + 1} is not valid JSON`);
      }
      // The line as it is: one item of JSON, on one line.
      items.push({ n: i + 1, json: line, at: atOf(value, () => whereOf(kind, { n: i + 1 })) });
    }
  }
  if (items.length === 0) throw new HistoryError(`${path} holds no events`);
  // Stable: those of one instant keep the file's order.
  return { kind, items: items.sort((a, b) => a.at - b.at) };
}

/** The items cut into parts of at most `maxItems` items and `maxBytes` bytes (an item alone may pass it). */
export function partsOf(items: readonly HistoryItem[], maxBytes: number, maxItems = MAX_IMPORT_ITEMS): Part[] {
  const parts: HistoryItem[][] = [];
  let part: HistoryItem[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(item.json) + 1;
    if (part.length >= maxItems || (part.length > 0 && bytes + size > maxBytes)) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(item);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
