/**
 * An `outcome` log entry (src/model/log.ts): a league cohort's decision when its run was final. It
 * is nobody's activity (no user seen by the rollup, no webhook planned from it); an erasure takes
 * the erased user's line out of it and keeps the others' and the cohort's counts (a restore then
 * writes the decision as the erasure left it in Redis), and a deleted tenant's erasure keeps
 * nothing of its users.
 */
import { describe, expect, it } from 'vitest';
import { emptyRollup, rollEntry } from '../../src/domain/analytics-rollup.js';
import { redactLine } from '../../src/domain/erasure.js';
import { redactTenantLine } from '../../src/domain/tenant-erasure.js';
import { mayNotify } from '../../src/domain/webhooks/events.js';
import { outcomeEntry, type LogBody } from '../../src/model/log.js';

describe('an outcome entry', () => {
  const decision = {
    t: '_', ts: Date.parse('2026-06-03T12:30:00Z'), b: 'board', r: '2026-06-01', c: '0.0',
    k: { n: 3, p: 1, d: 0, s: 2 }, o: { ann: 'p|1|30', bob: 's|2|20', 'c"d': 's|3|10' } as Record<string, string>,
  };
  const body = outcomeEntry(decision);
  const line = `1780490000000-0\toutcome\t${body}`;

  it('is no activity: the rollup sees no user, and no webhook is planned from it', () => {
    const r = emptyRollup();
    rollEntry(r, 'outcome', JSON.parse(body) as LogBody, null);
    expect(r.users.size).toBe(0);
    expect(mayNotify('outcome', ['outcome', body])).toBe(false);
  });

  it('loses an erased user\'s line and keeps the others\' and the counts', () => {
    const redacted = redactLine(line, { tenant: '_', userId: 'c"d', erasureId: 'x1' });
    expect(redacted).not.toBeNull();
    const [id, kind, rest] = redacted!.split('\t');
    expect([id, kind]).toEqual(['1780490000000-0', 'outcome']);
    expect(JSON.parse(rest)).toEqual({ ...decision, o: { ann: 'p|1|30', bob: 's|2|20' } });
    // A user it does not name, or another tenant's: the line stays.
    expect(redactLine(line, { tenant: '_', userId: 'cy', erasureId: 'x1' })).toBeNull();
    expect(redactLine(line, { tenant: 'other', userId: 'ann', erasureId: 'x1' })).toBeNull();
  });

  it('keeps nothing of its users when its tenant is erased', () => {
    const redacted = redactTenantLine(line, '_', 'x2');
    expect(JSON.parse(redacted!.split('\t')[2])).toEqual({ t: '_', ts: decision.ts, x: 'x2', k: 'outcome' });
  });
});
