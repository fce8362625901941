/**
 * The load test's own configuration, set up through the Admin API before the load and removed
 * after it (unless --keep): a tenant `loadtest-<run id>` for its users, and on the account (where
 * laurel keeps configuration) a metric, achievements, an XP points system and a leaderboard, each
 * named with the run id, and a daily streak on the metric only when the installation has no
 * streak rule (the rule is one for the whole account: the run never changes one in use, and puts
 * back what it found). Nothing else of the installation is written.
 */
import { httpCall, HttpCallError, type HttpAnswer } from '../lib/http-call.js';
import type { Setup } from './scenario.js';

export interface Admin {
  url: string;
  key: string;
}

/** What a run created, to remove at its end. */
export interface Created {
  tenant: { id: string; customerId: string } | null;
  metric: { id: string; key: string } | null;
  achievements: string[];
  points: { id: string; key: string } | null;
  leaderboard: { id: string; key: string } | null;
  /** The streak rule found before the run (put back at its end); null when the run set none. */
  streakBefore: StreakRule | null;
}

export interface StreakRule {
  frequency: string;
  evaluation: string;
  metrics: { metricId: string; threshold: number }[];
  freezes: unknown;
}

export class AdminError extends Error {}

export async function call(a: Admin, method: string, path: string, body?: unknown, tenant?: string): Promise<HttpAnswer> {
  const headers: Record<string, string> = { 'X-API-KEY': a.key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (tenant !== undefined) headers['Tenant-ID'] = tenant;
  try {
    return await httpCall(`${a.url}${path}`, method, headers, body === undefined ? undefined : JSON.stringify(body), 15_000);
  } catch (err) {
    throw err instanceof HttpCallError ? new AdminError(err.message) : err;
  }
}

/** Creates one item of an Admin resource (an array of one in, `{ created, issues }` out). */
async function createOne(a: Admin, path: string, item: unknown, what: string): Promise<{ id: string }> {
  const r = await call(a, 'POST', path, [item]);
  const created = r.body?.created?.[0];
  if (r.status !== 201 || created?.id === undefined) throw new AdminError(`creating ${what} failed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return created as { id: string };
}

export function emptyCreated(): Created {
  return { tenant: null, metric: null, achievements: [], points: null, leaderboard: null, streakBefore: null };
}

/**
 * Sets up the run's configuration into `created` (filled as it goes, so what was made before a
 * failure is removed all the same). Answers notes on what was left out.
 */
export async function setUp(a: Admin, runId: string, setup: Setup, created: Created, withTenant: boolean): Promise<string[]> {
  const notes: string[] = [];
  const name = `loadtest-${runId}`;
  if (withTenant) {
    const t = await createOne(a, '/admin/v1/tenants', { customerId: name, name: `laurel loadtest ${runId}` }, `the tenant ${name}`);
    created.tenant = { id: t.id, customerId: name };
  }
  const m = await createOne(a, '/admin/v1/metrics', { name: `Load test ${runId}`, key: name }, `the metric ${name}`);
  created.metric = { id: m.id, key: name };
  for (const n of setup.achievements) {
    const key = `${name}-${n}`;
    const ach = await createOne(a, '/admin/v1/achievements', { name: `Load test ${runId}: ${n}`, key, trigger: 'metric', metricId: m.id, metricValue: n }, `the achievement ${key}`);
    created.achievements.push(ach.id);
  }
  if (setup.streak) {
    const r = await call(a, 'GET', '/admin/v1/streaks/settings');
    if (r.status !== 200) throw new AdminError(`reading the streak rule failed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    const before = r.body as StreakRule;
    if (before.metrics.length > 0) {
      notes.push('the installation has a streak rule: left as it is, so the run\'s events extend no streak');
    } else {
      const put = await call(a, 'PUT', '/admin/v1/streaks/settings', {
        frequency: 'daily', evaluation: 'any', metrics: [{ metricId: m.id, threshold: 1 }],
        freezes: { initial: 1, max: 3, autoEarnInterval: 7, autoEarnAmount: 1 },
      });
      if (put.status !== 200) throw new AdminError(`setting the streak rule failed: HTTP ${put.status} ${put.text.slice(0, 300)}`);
      created.streakBefore = { frequency: before.frequency, evaluation: before.evaluation, metrics: before.metrics, freezes: before.freezes };
    }
  }
  if (setup.points) {
    const p = await createOne(a, '/admin/v1/points', {
      name: `Load test ${runId} XP`, key: name,
      levels: [{ name: 'Novice', key: `${name}-novice`, points: 50 }, { name: 'Adept', key: `${name}-adept`, points: 200 }],
      triggers: [{ type: 'metric', metricId: m.id, metricThreshold: 1, points: 10, status: 'active' }],
    }, `the points system ${name}`);
    created.points = { id: p.id, key: name };
  }
  if (setup.leaderboard !== null) {
    const b = await createOne(a, '/admin/v1/leaderboards', {
      name: `Load test ${runId}`, key: name, rankBy: 'metric', metricId: m.id, maxParticipants: setup.leaderboard, status: 'active',
    }, `the leaderboard ${name}`);
    created.leaderboard = { id: b.id, key: name };
  }
  return notes;
}

/**
 * One event before the load, so a wrong URL, key, tenant or metric stops the run here with the
 * reason rather than as thousands of errors in the table.
 */
export async function probe(a: Admin, metric: string, user: string, tenant: string | null): Promise<void> {
  const r = await call(a, 'POST', `/api/metrics/${encodeURIComponent(metric)}/event`, { user: { id: user }, value: 1 }, tenant ?? undefined);
  if (r.status !== 201) throw new AdminError(`the probe event (POST /api/metrics/${metric}/event) failed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
}

/**
 * Removes what the run created, the configuration before the tenant (a metric in use by the
 * streak rule, a points system or a board cannot go first). Answers what could not be removed.
 */
export async function cleanUp(a: Admin, created: Created): Promise<string[]> {
  const left: string[] = [];
  const remove = async (path: string, ids: string[], what: string) => {
    if (ids.length === 0) return;
    try {
      const r = await call(a, 'DELETE', `${path}?ids=${ids.map(encodeURIComponent).join(',')}`);
      const deleted = new Set(((r.body?.deleted ?? []) as { id: string }[]).map((d) => d.id));
      const missing = ids.filter((id) => !deleted.has(id));
      if (r.status !== 200 || missing.length > 0) left.push(`${what} (${missing.join(', ')}): HTTP ${r.status} ${r.text.slice(0, 200)}`);
    } catch (err) {
      left.push(`${what}: ${(err as Error).message}`);
    }
  };
  await remove('/admin/v1/leaderboards', created.leaderboard === null ? [] : [created.leaderboard.id], `the leaderboard ${created.leaderboard?.key}`);
  await remove('/admin/v1/points', created.points === null ? [] : [created.points.id], `the points system ${created.points?.key}`);
  await remove('/admin/v1/achievements', created.achievements, 'the achievements');
  if (created.streakBefore !== null) {
    try {
      const r = await call(a, 'PUT', '/admin/v1/streaks/settings', created.streakBefore);
      if (r.status !== 200) left.push(`the streak rule (set to one naming no metric): HTTP ${r.status} ${r.text.slice(0, 200)}`);
    } catch (err) {
      left.push(`the streak rule: ${(err as Error).message}`);
    }
  }
  await remove('/admin/v1/metrics', created.metric === null ? [] : [created.metric.id], `the metric ${created.metric?.key}`);
  await remove('/admin/v1/tenants', created.tenant === null ? [] : [created.tenant.id], `the tenant ${created.tenant?.customerId}`);
  return left;
}
