/**
 * The manual clock (`PUT /admin/v1/clock`, LAUREL_CLOCK=manual) takes an ISO-8601 date-time of
 * laurel's calendar (docs/api.md): a day that does not exist, an hour 24 or an offset past 23:59,
 * or an instant before 1970 or past 9999, is 400 `invalid_body` and leaves the clock where it was;
 * an offset is read as the instant it names.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';

describe('the manual clock', () => {
  const s = useTestServer({ clock: 'manual' });

  const put = (now: string) => s.request('PUT', '/admin/v1/clock', { body: { now } });

  it('takes an instant of the calendar, and refuses one that is none', async () => {
    const set = await put('2026-01-31T12:00:00+01:00');
    expect([set.status, set.body], set.text).toEqual([200, { now: '2026-01-31T11:00:00.000Z', mode: 'manual' }]);
    for (const now of [
      '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '1969-12-31T23:59:59Z', '1970-01-01T00:30:00+01:00', '2026-01-31', 'yesterday',
      // An offset or an hour out of range: no instant, though luxon reads one (+99:99 as 100 hours 39 minutes).
      '2026-01-31T12:00:00+99:99', '2026-01-31T12:00:00+24:00', '2026-01-31T12:00:00-25:00', '2026-01-31T12:00:00+05:60', '2026-01-31T24:00:00Z',
    ]) {
      const r = await put(now);
      expect([r.status, r.body.code], `${now}: ${r.text}`).toEqual([400, 'invalid_body']);
    }
    expect((await s.request('GET', '/admin/v1/clock')).body.now).toBe('2026-01-31T11:00:00.000Z');
    expect((await put('1970-01-01T00:00:00Z')).status).toBe(200);
    expect((await put('9999-12-31T23:59:59Z')).status).toBe(200);
  });
});
