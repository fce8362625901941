/**
 * Every aggregate a fair-play operation moves (docs/api.md, "Fair play"), read on every api process
 * the moment the operation answers: against the api as `npm start` runs it (the default number of
 * api processes on one port, the workers beside them), each round makes one operation, then reads
 * on connections opened before it (each accepted by whichever process the kernel chose). A revoke:
 * the achievement's completions and rarity and the user's achievements, again once the backfill
 * queued when the achievement was created that round has run. A void: the user's total, points and
 * board value, and the points summary with and without a user-attribute filter, read on every
 * process before it. An exclusion: the board's rows, the user's rank, the streak rankings (a user
 * who stays holds them).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';

const ROUNDS = 30;
/** Connections per read: requests sent at once after each operation. */
const AT_ONCE = 4;

const s = useTestServer({ processes: true, workers: true });

beforeAll(async () => {
  expect(s.processes!.count).toBeGreaterThanOrEqual(2);
  const ids = await s.metrics('quizzes', 'runs');
  await s.attributes('user', 'plan');
  const xp = await s.request('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.runs, metricThreshold: 1, points: 10, status: 'active' }] }],
  });
  expect(xp.status, xp.text).toBe(201);
  const board = await s.request('POST', '/admin/v1/leaderboards', {
    body: [{ name: 'Runs', key: 'runs-all', status: 'active', rankBy: 'metric', metricId: ids.runs, maxParticipants: 1000, start: '2020-01-01' }],
  });
  expect(board.status, board.text).toBe(201);
  const rule = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.runs, threshold: 1 }] } });
  expect(rule.status, rule.text).toBe(200);
  // A tenant per operation: each test counts its own users.
  const tenants = await s.request('POST', '/admin/v1/tenants', {
    body: ['revokes', 'voids', 'exclusions'].map((customerId) => ({ customerId, name: customerId })),
  });
  expect(tenants.status, tenants.text).toBe(201);
}, 120_000);


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

/** The highest total a points summary counts a user at. */
function highest(summary: { to: number; users: number }[]): number {
  return Math.max(...summary.filter((range) => range.users > 0).map((range) => range.to));
}

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

  it('takes a void off the total, the points, the board and both points summaries', { timeout: 180_000 }, async () => {
    const tenant = 'voids';
    for (let round = 1; round <= ROUNDS; round++) {
      const id = `vic-${round}`;
      // A plan of the round's own: its filtered summary is one no process has cached yet.
      const filtered = `/v1/points/xp/summary?userAttributes=plan:p${round}`;
      await event(tenant, 'runs', { id, attributes: { plan: `p${round}` } }, 1);
      const farmed = await event(tenant, 'runs', { id }, 1000);
      // Every process reads (and caches) the summaries with the farmed points.
      for (const path of ['/v1/points/xp/summary', filtered]) {
        expect((await (await reads(tenant, path))()).map(highest), path).not.toContain(10);
      }
      const read = await Promise.all([
        `/v1/users/${id}/metrics/runs`, `/v1/users/${id}/points/xp`, `/v1/users/${id}/leaderboards/runs-all`, '/v1/points/xp/summary', filtered,
      ].map((path) => reads(tenant, path)));
      const voided = await s.request('POST', '/admin/v1/events/void', { body: [{ eventId: farmed.eventId, reason: 'farmed' }], tenant });
      expect(voided.body.voided, voided.text).toHaveLength(1);
      const [total, points, board, summary, summaryFiltered] = await Promise.all(read.map((r) => r()));
      expect(total.map((b) => b.current), `round ${round}`).toEqual(everywhere(1));
      expect(points.map((b) => b.total), `round ${round}`).toEqual(everywhere(10));
      expect(board.map((b) => b.value), `round ${round}`).toEqual(everywhere(1));
      expect(summary.map(highest), `round ${round}`).toEqual(everywhere(10));
      expect(summaryFiltered.map(highest), `round ${round}`).toEqual(everywhere(10));
    }
  });

  it('takes an excluded user off the board and the streak rankings', { timeout: 180_000 }, async () => {
    const tenant = 'exclusions';
    await event(tenant, 'runs', { id: 'kept' }, 1);
    for (let round = 1; round <= ROUNDS; round++) {
      const id = `xan-${round}`;
      await event(tenant, 'runs', { id }, 5);
      const read = await Promise.all([
        '/v1/leaderboards/runs-all?limit=100', `/v1/users/${id}/leaderboards/runs-all`, '/v1/streaks/rankings?limit=100',
      ].map((path) => reads(tenant, path)));
      const excluded = await s.request('PUT', `/admin/v1/users/${id}/exclusion`, { body: { reason: 'farming' }, tenant });
      expect(excluded.status, excluded.text).toBe(200);
      const [rows, rank, streaks] = await Promise.all(read.map((r) => r()));
      const ids = (list: { userId: string }[]) => list.map((x) => x.userId);
      expect(rows.map((b) => ids(b.rankings)), `round ${round}`).toEqual(everywhere(['kept']));
      expect(rank.map((b) => b.rank), `round ${round}`).toEqual(everywhere(null));
      expect(streaks.map(ids), `round ${round}`).toEqual(everywhere(['kept']));
    }
  });
});
