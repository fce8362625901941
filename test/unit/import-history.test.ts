/**
 * The command line's history file (src/import/history.ts): read in the order its events happened,
 * those of one instant in the file's order, and cut into parts that hold every item once, in that
 * order, none past the items or bytes allowed but an item alone: a property over generated items.
 */
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_ITEMS } from '../../src/domain/import.js';
import { HistoryError, partsOf, readHistory, whereOf, type HistoryItem } from '../../src/import/history.js';

describe('a history file', () => {
  it('cuts items into parts that keep every item once, in order, within the bounds', () => {
    const items = fc.array(fc.record({ n: fc.nat(), json: fc.string({ maxLength: 300 }), at: fc.nat() }), { maxLength: 500 });
    fc.assert(fc.property(items, fc.integer({ min: 1, max: 200_000 }), fc.integer({ min: 1, max: 600 }), (list: HistoryItem[], maxBytes, maxItems) => {
      const parts = partsOf(list, maxBytes, maxItems);
      expect(parts.flat()).toEqual(list);
      for (const part of parts) {
        expect(part.length).toBeGreaterThan(0);
        expect(part.length).toBeLessThanOrEqual(maxItems);
        const bytes = part.reduce((n, i) => n + Buffer.byteLength(i.json) + 1, 0);
        if (part.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
      }
    }), { numRuns: 60 });
    // Past the items a part holds.
    const many = Array.from({ length: 2 * MAX_IMPORT_ITEMS + 10 }, (_, i) => ({ n: i + 1, json: '{}', at: i }));
    expect(partsOf(many, 1 << 30).map((p) => p.length)).toEqual([MAX_IMPORT_ITEMS, MAX_IMPORT_ITEMS, 10]);
  });

  it('reads NDJSON and a JSON array in the order the events happened, and refuses what it cannot read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'laurel-history-'));
    try {
      const at = (i: number, t: string) => ({ key: 'k', user: { id: `u${i}` }, value: 1, occurredAt: t });
      const events = [at(0, '2026-01-02T00:00:00Z'), at(1, '2026-01-01T23:00:00-02:00'), at(2, '2026-01-02T00:00:00Z'), at(3, '2025-12-31T00:00:00Z')];
      const ndjson = join(dir, 'a.ndjson');
      await writeFile(ndjson, `${events.map((e) => JSON.stringify(e)).join('\r\n')}\r\n\r\n`);
      const lines = await readHistory(ndjson);
      expect(lines.items.map((i) => whereOf(lines.kind, i))).toEqual(['line 4', 'line 1', 'line 3', 'line 2']);
      // A line is sent as it was written.
      expect(lines.items[1].json).toBe(JSON.stringify(events[0]));
      const array = join(dir, 'a.json');
      await writeFile(array, JSON.stringify(events, null, 2));
      const array2 = await readHistory(array);
      expect(array2.items.map((i) => whereOf(array2.kind, i))).toEqual(['item 3', 'item 0', 'item 2', 'item 1']);
      const cases: [string, string][] = [
        ['', 'holds no events'],
        ['[1', 'is not valid JSON'],
        [`${JSON.stringify(events[0])}\n{`, 'line 2 is not valid JSON'],
        [JSON.stringify({ ...events[0], occurredAt: '2026-02-30T00:00:00Z' }), 'line 1: occurredAt must be'],
        [JSON.stringify([{ key: 'k' }]), 'item 0: occurredAt is missing'],
        ['"hello"', 'line 1 is not an event (a JSON object)'],
      ];
      for (const [text, message] of cases) {
        const file = join(dir, 'bad');
        await writeFile(file, text);
        await expect(readHistory(file)).rejects.toThrow(message);
      }
      await expect(readHistory(join(dir, 'missing'))).rejects.toBeInstanceOf(HistoryError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
