/**
 * The analytics' range against laurel's calendar, on `laurel api` (its api processes out of this
 * process, so that one a request sends into a loop cannot stop the test): a date of year 0, of
 * year 10000, before 1970 or that is no date answers a 400 naming its parameter at once, with an
 * admin key and with a key bound to a tenant; the calendar's first and last days and a range of 366
 * days answer; a longer range is refused; and the api processes are at rest after (their CPU over
 * an idle second) and ready. Each request waits 3 s at most; the api processes are killed after,
 * whatever they are doing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcesses, type ApiProcesses } from '../support/api-processes.js';
import { killCliProcesses } from '../support/cli.js';
import { deletePrefix } from '../support/server.js';
import { loadSettings } from '../../src/lib/settings.js';
import { descendants, idleUse, killAll } from '../support/process-stats.js';

/** Longer than any of these answers takes; a request past it has hung. */
const TIMEOUT_MS = 3000;

describe('analytics over the calendar\'s edges', () => {
  let api: ApiProcesses;
  let pids: number[] = [];
  let bound = '';

  beforeAll(async () => {
    api = await startApiProcesses();
    pids = descendants(api.run.child.pid!);
    expect(pids.length).toBeGreaterThan(0);
    expect((await api.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] })).status).toBe(201);
    const key = await api.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: 'acme' } });
    expect(key.status, key.text).toBe(201);
    bound = key.body.key;
  }, 90_000);

  afterAll(async () => {
    // An api process in a loop would not hear SIGTERM: kill them first, then stop the primary.
    killAll(pids);
    await api?.close();
    // A primary that never got ready (beforeAll failed) too.
    killCliProcesses();
    if (api) await deletePrefix(loadSettings({ ...process.env, LAUREL_PREFIX: api.prefix }), api.prefix);
  });

  /** GET /admin/v1/analytics?<query> with `key` (and the tenant for a bound one), answered within TIMEOUT_MS. */
  const analytics = async (query: string, key: 'admin' | 'bound') => {
    const headers: Record<string, string> = key === 'admin' ? { 'x-api-key': api.adminKey } : { 'x-api-key': bound, 'tenant-id': 'acme' };
    const res = await fetch(`${api.url}/admin/v1/analytics?${query}`, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) })
      .catch((err: Error) => { throw new Error(`GET /admin/v1/analytics?${query} (${key} key): no answer within ${TIMEOUT_MS} ms (${err.message})`); });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as Record<string, any>, text };
  };

  it('answers a date outside the calendar with a 400 naming its parameter, at once', async () => {
    const cases: [query: string, param: string][] = [
      ['from=0000-01-01&to=0000-01-01', 'from'],
      ['to=0000-01-20', 'to'],
      ['from=0000-01-01', 'from'],
      ['from=2026-01-01&to=10000-01-01', 'to'],
      ['from=-000001-12-26&to=2026-01-01', 'from'],
      ['from=%2B010000-01-01', 'from'],
      ['from=1969-12-31&to=1970-01-01', 'from'],
      ['to=2026-02-30', 'to'],
      ['to=NaN', 'to'],
      ['from=2026-01-01&from=2026-01-02', 'from'],
    ];
    for (const key of ['admin', 'bound'] as const) {
      for (const [query, param] of cases) {
        const r = await analytics(query, key);
        expect(r.status, `${query} (${key} key): ${r.text}`).toBe(400);
        expect(r.body.code).toBe('invalid_query');
        expect(r.body.error, query).toMatch(new RegExp(`^Invalid query parameter: ${param} `));
      }
    }
  });

  it('answers the calendar\'s first and last days and 366 days, and refuses a longer or reversed range', async () => {
    for (const [from, to, days] of [['1970-01-01', '1970-01-01', 1], ['9999-12-31', '9999-12-31', 1], ['9999-01-01', '9999-12-31', 365], ['2024-01-01', '2024-12-31', 366]] as const) {
      const r = await analytics(`from=${from}&to=${to}`, 'admin');
      expect(r.status, r.text).toBe(200);
      expect(r.body.days.map((d: { date: string }) => d.date)).toHaveLength(days);
      expect([r.body.days[0].date, r.body.days.at(-1).date]).toEqual([from, to]);
    }
    const long = await analytics('from=2024-01-01&to=2025-01-01', 'bound');
    expect([long.status, long.body]).toEqual([400, { code: 'invalid_query', error: 'Invalid query parameter: from and to may span at most 366 days' }]);
    expect((await analytics('from=1970-01-01&to=9999-12-31', 'admin')).body.code).toBe('invalid_query');
    expect((await analytics('from=2026-01-02&to=2026-01-01', 'admin')).body.error).toBe('Invalid query parameter: from must not be after to');
  });

  it('leaves the api processes at rest and ready', async () => {
    for (const use of await idleUse(pids, 1000)) {
      expect(use.after, `api process ${use.pid} exited`).not.toBeNull();
      // At rest: a few ms of CPU in a second (a loop would use the whole second).
      expect(use.cpuMs, `api process ${use.pid}`).toBeLessThan(250);
    }
    const ready = await fetch(`${api.url}/ready`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    expect(ready.status).toBe(200);
  });
});
