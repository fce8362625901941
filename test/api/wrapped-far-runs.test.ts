/**
 * A user's wrapped (through a key of their own, as their device calls it) beside repeating boards
 * whose second run would start after 9999-12-31, which the Admin API takes (any `runInterval`):
 * answered, with the boards' one run of the year, where the walk over their runs never ended and
 * held its api process for good.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';

describe('wrapped beside boards whose next run is past the calendar', () => {
  const s = useTestServer({ clock: 'manual' });

  beforeAll(async () => {
    await s.setClock('2026-03-01T10:00:00Z');
    await s.metrics('lessons');
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Millennia', key: 'millennia', rankBy: 'metric', metricKey: 'lessons', status: 'active', start: '2026-01-01', runUnit: 'year', runInterval: 8000 },
        { name: 'Aeons', key: 'aeons', rankBy: 'metric', metricKey: 'lessons', status: 'active', start: '2026-01-01', runUnit: 'month', runInterval: 100000 },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
    await s.event('lessons', 'bob', 3);
  });

  it('answers a user\'s own key with the boards\' run of the year', async () => {
    const keys = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'bob' }] });
    expect(keys.status, keys.text).toBe(201);
    const r = await s.request('GET', '/api/users/bob/wrapped', { key: keys.body.created[0].key });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('millennia');
    expect(r.text).toContain('aeons');
    expect((await s.request('GET', '/api/leaderboards/aeons')).body).toMatchObject({ run: '2026-01-01', runEnd: '9999-12-31' });
  });
});
