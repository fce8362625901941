/**
 * A sharded board's merge orders members as Redis does, by their UTF-8 bytes
 * (src/redis/shard-merge.ts `compare`), without encoding them: against Buffer.compare over random
 * members mixing ASCII, letters past U+00FF, units from U+E000 up and code points past U+FFFF
 * (surrogate pairs), prefixes of one another included; a higher value first, whatever the members.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compare } from '../../src/redis/shard-merge.js';

const unit = fc.constantFrom('0', '9', '|', 'a', 'é', 'ᄀ', '\ue000', '\uffee', '😀', '𝄞', 'z');
const member = fc.array(unit, { maxLength: 6 }).map((parts) => `000123|${parts.join('')}`);

describe('the order of members in a merge', () => {
  it('is the order of their UTF-8 bytes, the larger first, on equal values', () => {
    fc.assert(fc.property(member, member, (a, b) => {
      const byBytes = Math.sign(Buffer.compare(Buffer.from(b), Buffer.from(a)));
      expect(Math.sign(compare({ member: a, score: 5 }, { member: b, score: 5 }))).toBe(byBytes);
    }), { numRuns: 2000 });
  });

  it('puts the higher value first, whatever the members', () => {
    expect(compare({ member: '0|a', score: 7 }, { member: '9|z', score: 6 })).toBeLessThan(0);
    expect(compare({ member: '9|z', score: 6 }, { member: '0|a', score: 7 })).toBeGreaterThan(0);
  });
});
