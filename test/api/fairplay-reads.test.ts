/**
 * Every aggregate a fair-play operation moves (docs/api.md, "Fair play"), read on every api process
 * the moment the operation answers: against the api as `npm start` runs it (the default number of
 * api processes on one port, the workers beside them), each round makes one operation, then reads
 * on connections opened before it (each accepted by whichever process the kernel chose). A revoke:
 * the achievement's completions and rarity and the user's achievements, again once the backfill
 * queued when the achievement was created that round has run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

const ROUNDS = 30;
/** Connections per read: requests sent at once after each operation. */
const AT_ONCE = 4;

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ processes: true, workers: true });
  expect(s.processes!.count).toBeGreaterThanOrEqual(2);
  await s.metrics('quizzes');
  // A tenant per operation: each test counts its own users.
  const tenants = await s.request('POST', '/admin/v1/tenants', {
    body: ['revokes'].map((customerId) => ({ customerId, name: customerId })),
  });
  expect(tenants.status, tenants.text).toBe(201);
}, 120_000);

afterAll(async () => { await s?.close(); });

async function event(tenant: string, metric: string, user: Record<string, unknown>, value: number): Promise<any> {
  const r = await s.request('POST', `/api/metrics/${metric}/event`, { body: { user, value }, tenant });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** Connections opened now for `GET path`; the function sends it on each and answers the bodies. */
async function reads(tenant: string, path: string): Promise<() => Promise<any[]>> {
  const connections = await s.processes!.connections(AT_ONCE);
  return async () => {
    const answers = await connections.send('GET', path, { tenant });
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text}`), path).toEqual([]);
    return answers.map((a) => a.body);
  };
}

/** `value` as each of the AT_ONCE reads should answer it. */
const everywhere = <T>(value: T): T[] => Array.from({ length: AT_ONCE }, () => value);

describe('fair play read on every api process at once', () => {
  it('counts a revoke in completions and rarity, and keeps it once the backfill ran', { timeout: 180_000 }, async () => {
    const tenant = 'revokes';
    for (let round = 1; round <= ROUNDS; round++) {
      // Created now, so its backfill runs about when the revoke does; only this round's users
      // qualify (earlier ones' totals are lower).
      const key = `quiz-${round}`;
      const made = await s.request('POST', '/admin/v1/achievements', {
        body: [{ name: `Quiz ${round}`, key, trigger: 'metric', metricKey: 'quizzes', metricValue: 1000 + round }],
      });
      expect(made.status, made.text).toBe(201);
      for (const id of [`ann-${round}`, `bob-${round}`]) await event(tenant, 'quizzes', { id }, 1000 + round);
      const listed = await reads(tenant, '/v1/achievements');
      const bobs = await reads(tenant, `/v1/users/bob-${round}/achievements`);
      const revoked = await s.request('DELETE', `/admin/v1/users/bob-${round}/achievements/${key}`, { tenant });
      expect(revoked.status, revoked.text).toBe(200);
      const stats = (list: { key: string; completions: number; rarity: number }[]) => {
        const a = list.find((x) => x.key === key)!;
        return [a.completions, a.rarity];
      };
      const want = [1, Math.round(10000 / (2 * round)) / 100];
      expect((await listed()).map(stats), `round ${round}`).toEqual(everywhere(want));
      expect((await bobs()).map((list: { key: string }[]) => list.some((a) => a.key === key)), `round ${round}`).toEqual(everywhere(false));
      await s.workers!.testing.achievementsIdle();
      expect(stats((await s.request('GET', '/v1/achievements', { tenant })).body), `round ${round}, backfilled`).toEqual(want);
    }
  });
});
