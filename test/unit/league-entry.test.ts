/**
 * A `league` log entry (src/model/log.ts) is a seat, not something the user did: the analytics'
 * rollup of a drain pass takes nothing of it (no user seen, no day active), nor do the webhooks;
 * erased, it keeps the seat (still taken) and nothing of the user.
 */
import { describe, expect, it } from 'vitest';
import { emptyRollup, rollEntry } from '../../src/domain/analytics-rollup.js';
import { redactedBody } from '../../src/domain/erasure.js';
import { mayNotify } from '../../src/domain/webhooks/events.js';
import { leagueEntry, type LogBody } from '../../src/model/log.js';

describe('a league entry', () => {
  const body = leagueEntry({ t: '_', u: 'ann', ts: Date.parse('2026-06-02T12:00:00Z'), b: 'board', r: '2026-06-02', c: '1.0', n: '0.3', e: '1780401600000-100000000001' });

  it('names the seat, and the entry whose placement joined', () => {
    expect(JSON.parse(body)).toEqual({ t: '_', u: 'ann', ts: 1780401600000, b: 'board', r: '2026-06-02', c: '1.0', n: '0.3', e: '1780401600000-100000000001' });
    expect(JSON.parse(leagueEntry({ t: '_', u: 'ann', ts: 1, b: 'board', r: '2026-06-02', c: '1.0', n: '0.3' }))).not.toHaveProperty('e');
  });

  it('is no activity: the rollup sees no user, and no webhook is planned from it', () => {
    const r = emptyRollup();
    rollEntry(r, 'league', JSON.parse(body) as LogBody, null);
    expect(r.users.size).toBe(0);
    expect(r.days.size).toBe(0);
    // The same body as another kind is a user seen.
    rollEntry(r, 'preferences', JSON.parse(body) as LogBody, null);
    expect(r.users.size).toBe(1);
    expect(mayNotify('league', ['league', body, 'lg', '1|2026-06-02|0'])).toBe(false);
  });

  it('keeps its seat when its user is erased, and nothing that names them', () => {
    const redacted = redactedBody('league', JSON.parse(body) as Record<string, unknown>, { tenant: '_', erasureId: 'x1' });
    expect(redacted).toEqual({ t: '_', ts: 1780401600000, x: 'x1', k: 'league', b: 'board', r: '2026-06-02', c: '1.0', n: '0.3' });
  });
});
