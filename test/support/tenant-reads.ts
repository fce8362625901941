/**
 * What the API answers about a tenant's users and boards, to compare two tenants that were sent
 * the same events by two paths (test/api/batch-apply.test.ts, test/api/batch-gather.test.ts).
 */
import type { TestServer } from './server.js';

/**
 * An answer without its ranks, each ranking's entries by user: users that tie are ranked in the order
 * they reached the value, and a batch's items of different users are applied side by side. Without
 * the ids of points awards either: they are made from the tenant's name (src/domain/ids.ts nameUuid).
 */
export function withoutRanks(value: unknown): unknown {
  if (Array.isArray(value)) {
    const list = value.map(withoutRanks);
    const byUser = (x: unknown) => (x !== null && typeof x === 'object' ? String((x as { userId?: unknown }).userId ?? '') : '');
    return list.every((x) => byUser(x) !== '') ? list.sort((a, b) => byUser(a).localeCompare(byUser(b))) : list;
  }
  if (value === null || typeof value !== 'object') return value;
  const named = (k: string, v: unknown) => k === 'id' && typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-5/.test(v);
  // A percentile is a rank's too: users who tie may be placed in another order.
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => !/rank|percentile/i.test(k) && !named(k, v)).map(([k, v]) => [k, withoutRanks(v)]));
}

/**
 * Every user's reads (the metric `lessons`' daily summary from March 1st 2026 to `lastDay`, the
 * points system `xp`) and every board's, of the tenant.
 */
export async function readTenant(
  s: TestServer, tenant: string, users: readonly string[], boards: readonly string[], lastDay: string,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const get = async (path: string) => {
    const r = await s.request('GET', path, { tenant });
    out[path] = { status: r.status, body: r.body };
  };
  for (const id of users) {
    await get(`/api/users/${id}`);
    await get(`/api/users/${id}/metrics`);
    await get(`/api/users/${id}/metrics/lessons/event-summary?aggregation=daily&startDate=2026-03-01&endDate=${lastDay}`);
    await get(`/api/users/${id}/achievements?includeIncomplete=true`);
    await get(`/api/users/${id}/streak?historyPeriods=7`);
    await get(`/api/users/${id}/points/xp`);
    for (const board of boards) await get(`/api/users/${id}/leaderboards/${board}`);
  }
  await get('/api/achievements');
  await get('/api/points/xp/summary');
  await get('/api/streaks/rankings?limit=100');
  await get('/api/streaks/rankings?limit=100&type=longest');
  for (const board of boards) await get(`/api/leaderboards/${board}?limit=100`);
  return out;
}
