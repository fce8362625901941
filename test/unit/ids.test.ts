/**
 * Ids made on the event path: a points award's id is derived from its name every time it is shown,
 * so quickNameUuid must never change its output. Log entry ids: what their parts say. A uuidv7
 * gives back the time it was made at (an import's notes read it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickNameUuid, timeOfUuidv7, UUID_PATTERN, uuidv7 } from '../../src/domain/ids.js';
import { orderOf } from '../../src/domain/leaderboards/runs.js';
import { arrivalInMs, partitionOfLogId } from '../../src/model/log.js';

// The first implementation, kept as the reference: hex of each hash, then the UUID cut from them.
function reference(name: string): string {
  const seeds = [0x811c9dc5, 0x050c5d1f, 0x2b992ddf, 0x9e3779b9];
  for (let i = 0; i < name.length; i++) {
    for (let k = 0; k < 4; k++) seeds[k] = Math.imul(seeds[k] ^ name.charCodeAt(i), 0x01000193);
  }
  const hex = seeds.map((n) => (n >>> 0).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

describe('quickNameUuid', () => {
  it('gives the ids it always gave', () => {
    expect(quickNameUuid('')).toBe('811c9dc5-050c-5d1f-ab99-2ddf9e3779b9');
    expect(quickNameUuid('a')).toBe('e40c292c-7077-5d5a-a023-021ae954cf08');
    expect(quickNameUuid('_\u0000user-1\u000001a2047c-d24e-700e-b515-63c06d722d8e\u00001')).toBe('b53cc3d8-a31c-5e56-9bc9-2e1648484dec');
    expect(quickNameUuid('tenant\u0000ü\u0000x\u0000123456')).toBe('a272d0ac-97c9-5a56-951c-5c96c436a2b0');
  });

  it('equals the reference for any name, in UUID form', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (name) => {
      const id = quickNameUuid(name);
      expect(id).toBe(reference(name));
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }), { numRuns: 2000 });
  });
});

describe('log entry ids', () => {
  it('order arrivals by the microsecond, old ids and ids that name the partition alike', () => {
    // '<ms>-1<µs><partition>': the microsecond, whatever the partition.
    expect(arrivalInMs('104500017')).toBe(45);
    expect(arrivalInMs('100016383')).toBe(0);
    expect(arrivalInMs('45')).toBe(45);
    // The next id after one of the same microsecond (lua/includes/logAdd.lua logNextId).
    expect(arrivalInMs('200000017')).toBe(1000);
    expect(partitionOfLogId('1700000000000-104500017')).toBe(17);
    expect(partitionOfLogId('1700000000000-45')).toBeNull();
    // Two partitions' entries of one microsecond tie; an earlier microsecond orders first (larger).
    expect(orderOf(0, '1700000000000-104500017')).toBe(orderOf(0, '1700000000000-104500003'));
    expect(orderOf(0, '1700000000000-104500017')).toBe(orderOf(0, '1700000000000-45'));
    expect(orderOf(0, '1700000000000-104400017') > orderOf(0, '1700000000000-104500003')).toBe(true);
  });
});

describe('uuidv7', () => {
  it('gives back the millisecond it was made at', () => {
    // Times only moving on (uuidv7 holds a process's ids increasing): each run's after the last's.
    let base = Date.now();
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 32 }), { minLength: 1, maxLength: 20 }), (steps) => {
      for (const step of steps) {
        base += step;
        const id = uuidv7(base);
        expect(id).toMatch(UUID_PATTERN);
        expect(timeOfUuidv7(id)).toBe(base);
      }
    }), { numRuns: 200 });
  });
});
