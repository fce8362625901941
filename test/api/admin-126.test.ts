/**
 * Trophy's Admin API 1.26.0 operations laurel had no form of (docs/api.md, "Differences from the specs"):
 * environments, organization settings (one setting with the notification settings' control ratio
 * and recap aggregation) and the streak reset. Every answer s.request gets is checked against the
 * 1.26.0 spec's response schemas (test/support/openapi.ts); the first test shows that check bites.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../support/openapi.js';
import { MISSING } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const s = useTestServer({ clock: 'manual', workers: true });
let ids: Record<string, string>;

beforeAll(async () => {
  ids = await s.metrics('lessons');
});

describe('conformance to the 1.26.0 spec', () => {
  it('checks the new operations\' answers against their 1.26.0 schemas', () => {
    const env = checkAnswer({ method: 'GET', path: '/admin/v1/environments', status: 200, body: [{ name: 'Production', key: 'production', priority: 1 }] });
    expect(env).toMatchObject({ kind: 'valid', operation: 'admin GET /environments' });
    const bad = checkAnswer({ method: 'GET', path: '/admin/v1/environments', status: 200, body: [{ name: 'Production', priority: 0 }] });
    expect(bad.kind).toBe('invalid');
    const settings = checkAnswer({ method: 'PATCH', path: '/admin/v1/settings', status: 200, body: { branding: {}, aggregationPeriod: 'daily' } });
    expect(settings.kind).toBe('invalid');
    const reset = checkAnswer({ method: 'POST', path: '/admin/v1/streaks/reset', status: 200, body: { issues: [] } });
    expect(reset.kind).toBe('invalid');
  });
});

describe('GET /environments', () => {
  it('lists production', async () => {
    const r = await s.request('GET', '/admin/v1/environments');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ name: 'Production', key: 'production', priority: 1 }]);
  });
});

describe('GET/PATCH /settings', () => {
  it('answers the defaults before anything is set', async () => {
    const r = await s.request('GET', '/admin/v1/settings');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      branding: { appName: '', appUrl: '', brandColor: '#000000', font: 'MODERN_SANS', logo: null, appIcon: null },
      experimentation: { controlRatio: 0, userActivationWindow: 14 },
      aggregationPeriod: 'weekly',
    });
  });

  it('merges a patch field by field, the control ratio a percentage of the notification settings\' ratio', async () => {
    await s.setClock('2026-03-02T10:00:00Z');
    let r = await s.request('PATCH', '/admin/v1/settings', {
      body: {
        branding: { appName: 'Acme', appUrl: 'https://app.acme.test', brandColor: '#1a2b3c', logo: { url: 'https://cdn.acme.test/l.png' } },
        experimentation: { controlRatio: 10 },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      branding: {
        appName: 'Acme', appUrl: 'https://app.acme.test', brandColor: '#1a2b3c', font: 'MODERN_SANS',
        logo: { url: 'https://cdn.acme.test/l.png' }, appIcon: null,
      },
      experimentation: { controlRatio: 10, userActivationWindow: 14 },
      aggregationPeriod: 'weekly',
    });
    let n = await s.request('GET', '/admin/v1/notifications/settings');
    expect(n.body).toMatchObject({ controlRatio: 0.1, recap: { aggregation: 'weekly' } });

    r = await s.request('PATCH', '/admin/v1/settings', {
      body: { branding: { font: 'MONOSPACE', logo: null, brandColor: 'rgba(1, 2, 3, 0.5)' }, experimentation: { userActivationWindow: 30 }, aggregationPeriod: 'monthly' },
    });
    expect(r.status).toBe(200);
    expect(r.body.branding).toMatchObject({ appName: 'Acme', font: 'MONOSPACE', logo: null, brandColor: 'rgba(1, 2, 3, 0.5)' });
    expect(r.body.experimentation).toEqual({ controlRatio: 10, userActivationWindow: 30 });
    expect(r.body.aggregationPeriod).toBe('monthly');
    n = await s.request('GET', '/admin/v1/notifications/settings');
    expect(n.body).toMatchObject({ controlRatio: 0.1, recap: { aggregation: 'monthly' } });

    // The notification settings' form changes the same setting, and keeps the branding.
    const put = await s.request('PUT', '/admin/v1/notifications/settings', { body: { controlRatio: 0.25, recap: { aggregation: 'weekly' } } });
    expect(put.status).toBe(200);
    r = await s.request('GET', '/admin/v1/settings');
    expect(r.body).toMatchObject({
      branding: { appName: 'Acme', font: 'MONOSPACE' }, experimentation: { controlRatio: 25, userActivationWindow: 30 }, aggregationPeriod: 'weekly',
    });
  });

  it('refuses what the spec does not take', async () => {
    const refused = async (body: unknown, status: number, code?: string) => {
      const r = await s.request('PATCH', '/admin/v1/settings', { body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (code !== undefined) expect(r.body.code).toBe(code);
    };
    await refused({ experimentation: { controlRatio: 101 } }, 400);
    await refused({ experimentation: { controlRatio: 0.5 } }, 400);
    await refused({ experimentation: { userActivationWindow: 2 } }, 400);
    await refused({ branding: null }, 400);
    await refused({ branding: { font: 'COMIC_SANS' } }, 400);
    await refused({ branding: { brandColor: 'blue' } }, 422);
    await refused({ branding: { brandColor: 'rgb(300,0,0)' } }, 422);
    await refused({ branding: { appUrl: 'javascript:alert(1)' } }, 422);
    await refused({ branding: { appIcon: { url: 'not a url' } } }, 422);
    await refused({ aggregationPeriod: 'daily' }, 400);
    await refused({ experimentation: { controlRatio: 5, ratio: 5 } }, 400, 'unknown_field');
    await refused({ colour: 'red' }, 400, 'unknown_field');
    const r = await s.request('GET', '/admin/v1/settings');
    expect(r.body.experimentation.controlRatio).toBe(25);
  });
});

describe('POST /streaks/reset', () => {
  it('refuses while no streak is configured', async () => {
    const r = await s.request('POST', '/admin/v1/streaks/reset', { body: { users: [{ id: 'a' }] } });
    expect(r.status).toBe(422);
  });

  it('resets current streaks to zero; the next extension starts again, the same day too', async () => {
    expect((await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] } })).status).toBe(200);
    await s.setClock('2026-03-02T10:00:00Z');
    await s.event('lessons', 'r1', 1);
    await s.event('lessons', 'r2', 1);
    await s.setClock('2026-03-03T10:00:00Z');
    expect((await s.event('lessons', 'r1', 1)).currentStreak).toMatchObject({ length: 2 });
    await s.event('lessons', 'quiet', 1);
    await s.setClock('2026-03-06T10:00:00Z');
    // r2's and quiet's streaks are lost by now; ghost does not exist.
    const r = await s.request('POST', '/admin/v1/streaks/reset', { body: { users: [{ id: 'r1' }, { id: 'r2' }, { id: 'ghost' }] } });
    expect(r.status).toBe(200);
    expect(r.body.resetUsers).toEqual([]);
    expect(r.body.issues).toEqual([
      expect.objectContaining({ userId: 'r1', severity: 'warning', message: 'No streak to reset' }),
      expect.objectContaining({ userId: 'r2', severity: 'warning', message: 'No streak to reset' }),
      expect.objectContaining({ userId: 'ghost', severity: 'error', message: 'User does not exist' }),
    ]);

    await s.event('lessons', 'r1', 1);
    await s.setClock('2026-03-07T10:00:00Z');
    expect((await s.event('lessons', 'r1', 1)).currentStreak).toMatchObject({ length: 2, started: '2026-03-06' });
    const done = await s.request('POST', '/admin/v1/streaks/reset', { body: { users: [{ id: 'r1' }, { id: 'r1' }] } });
    expect(done.body).toEqual({ resetUsers: ['r1'], issues: [] });
    const streak = await s.request('GET', '/api/users/r1/streak');
    expect(streak.body).toMatchObject({ length: 0 });
    // The history keeps the run that was reset.
    expect(streak.body.streakHistory.slice(-2)).toEqual([
      expect.objectContaining({ periodStart: '2026-03-06', length: 1 }), expect.objectContaining({ periodStart: '2026-03-07', length: 2 }),
    ]);
    // Acting again the same day starts the streak again.
    expect((await s.event('lessons', 'r1', 1)).currentStreak).toMatchObject({ length: 1, started: '2026-03-07', extended: true });
    const again = await s.request('POST', '/admin/v1/streaks/reset', { body: { users: [{ id: 'r1' }] } });
    expect(again.body.resetUsers).toEqual(['r1']);
    expect((await s.request('GET', '/api/users/r1/streak')).body).toMatchObject({ length: 0 });
  });

  it('refuses an empty, oversized or open body', async () => {
    for (const body of [{ users: [] }, { users: Array.from({ length: 101 }, (_, i) => ({ id: `u${i}` })) }, { users: [{ id: 'a', x: 1 }] }, {}]) {
      const r = await s.request('POST', '/admin/v1/streaks/reset', { body });
      expect(r.status).toBe(400);
    }
  });
});

describe('GET/PATCH /streaks/settings in 1.26.0\'s shape', () => {
  let more: Record<string, string>;
  beforeAll(async () => { more = await s.metrics('quizzes'); });

  it('patches the rule by metric key, the earlier form\'s fields answered beside', async () => {
    const r = await s.request('PATCH', '/admin/v1/streaks/settings', {
      body: {
        evaluationMode: 'OR', metrics: [{ key: 'lessons', threshold: 2 }, { key: 'quizzes', threshold: 1 }],
        freezes: { startCount: 1, maxCount: 3, autoEarnInterval: 7, autoEarnAmount: 1 },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      frequency: 'daily', evaluationMode: 'OR', customizationEnabled: true, daysOff: [], evaluation: 'any',
      metrics: [{ key: 'lessons', threshold: 2, metricId: ids.lessons }, { key: 'quizzes', threshold: 1, metricId: more.quizzes }],
      freezes: { startCount: 1, maxCount: 3, autoEarnInterval: 7, autoEarnAmount: 1, initial: 1, max: 3 },
    });
    const got = await s.request('GET', '/admin/v1/streaks/settings');
    expect(got.body).toEqual(r.body);
    // A field left out stays; auto-earning off answers null.
    const off = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { evaluationMode: 'AND', freezes: { startCount: 0, maxCount: 1 } } });
    expect(off.body).toMatchObject({
      evaluationMode: 'AND', evaluation: 'all', metrics: [{ key: 'lessons' }, { key: 'quizzes' }],
      freezes: { startCount: 0, maxCount: 1, autoEarnInterval: null, autoEarnAmount: null },
    });
    expect((await s.request('PATCH', '/admin/v1/streaks/settings', { body: { freezes: null } })).body.freezes).toBeNull();
  });

  it('keeps the earlier PUT form, and the GET answers both', async () => {
    const put = await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', evaluation: 'any', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 1, max: 2, autoEarnInterval: 0, autoEarnAmount: 0 } },
    });
    expect(put.status).toBe(200);
    const got = await s.request('GET', '/admin/v1/streaks/settings');
    expect(got.body).toMatchObject({
      evaluationMode: 'OR', evaluation: 'any', metrics: [{ key: 'lessons', metricId: ids.lessons, threshold: 1 }],
      freezes: { startCount: 1, maxCount: 2, initial: 1, max: 2, autoEarnInterval: null },
    });
  });

  it('turns users\' own streak rules off with customizationEnabled: false', async () => {
    await s.event('lessons', 'custom', 1);
    let r = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { customizationEnabled: false } });
    expect(r.body.customizationEnabled).toBe(false);
    const prefs = await s.request('PATCH', '/api/users/custom/preferences', { body: { streak: { evaluationMode: 'OR' } } });
    expect(prefs.status).toBe(422);
    // The earlier form keeps it.
    await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] } });
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body.customizationEnabled).toBe(false);
    r = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { customizationEnabled: true } });
    expect((await s.request('PATCH', '/api/users/custom/preferences', { body: { streak: { evaluationMode: 'OR' } } })).status).toBe(200);
  });

  it('refuses what the spec does not take', async () => {
    const refused = async (body: unknown, status: number, code?: string) => {
      const r = await s.request('PATCH', '/admin/v1/streaks/settings', { body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (code !== undefined) expect(r.body.code).toBe(code);
    };
    await refused({ evaluationMode: 'XOR' }, 400);
    await refused({ metrics: [] }, 400);
    await refused({ metrics: [{ key: 'lessons', threshold: 0 }] }, 400);
    await refused({ metrics: [{ key: 'pages', threshold: 1 }] }, 422);
    await refused({ metrics: [{ key: 'lessons', threshold: 1 }, { key: 'lessons', threshold: 2 }] }, 422);
    await refused({ freezes: { startCount: 3, maxCount: 2 } }, 422);
    await refused({ freezes: { startCount: 1, maxCount: 2, autoEarnInterval: 7 } }, 422);
    await refused({ freezes: { maxCount: 2 } }, 400);
    await refused({ daysOff: [7] }, 400);
    await refused({ daysOff: [0, 0] }, 400);
    await refused({ frequency: 'weekly', daysOff: [0] }, 422);
    await refused({ daysOff: [0, 1, 2, 3, 4, 5, 6] }, 400);
    await refused({ evaluation: 'any' }, 400, 'unknown_field');
    const r = await s.request('GET', '/admin/v1/streaks/settings');
    expect(r.body).toMatchObject({ frequency: 'daily', metrics: [{ key: 'lessons' }] });
  });
});

describe('/achievements in 1.26.0\'s shapes', () => {
  it('answers every operation in AdminAchievement\'s shape, a trigger\'s own fields only where it has them', async () => {
    const created = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'Ten lessons', key: 'ten-lessons', trigger: 'metric', metricId: ids.lessons, metricValue: 10 },
        { name: 'Week streak', key: 'week', trigger: 'streak', streakLength: 7, description: 'Seven days' },
        { name: 'Finisher', key: 'finisher', trigger: 'api' },
      ],
    });
    expect(created.status).toBe(201);
    const v = checkAnswer({ method: 'POST', path: '/admin/v1/achievements', status: 201, body: created.body });
    expect(v).toMatchObject({ kind: 'valid', operation: 'admin POST /achievements' });
    const [metric, streak, api] = created.body.created;
    expect(metric).toMatchObject({ trigger: 'metric', metricId: ids.lessons, metricValue: 10, badge: null, description: null, userAttributes: [] });
    expect(metric).not.toHaveProperty('streakLength');
    expect(streak).toMatchObject({ trigger: 'streak', streakLength: 7 });
    expect(streak).not.toHaveProperty('metricId');
    expect(streak).not.toHaveProperty('metricValue');
    expect(api).toMatchObject({ trigger: 'api', key: 'finisher' });

    const list = await s.request('GET', '/admin/v1/achievements?limit=10');
    expect(list.status).toBe(200);
    expect(checkAnswer({ method: 'GET', path: '/admin/v1/achievements?limit=10', status: 200, body: list.body }).kind).toBe('valid');
    const one = await s.request('GET', `/admin/v1/achievements/${streak.id}`);
    expect(one.body).toMatchObject({ id: streak.id, streakLength: 7 });
    const patched = await s.request('PATCH', '/admin/v1/achievements', { body: [{ id: streak.id, streakLength: 14, status: 'inactive' }] });
    expect(patched.status).toBe(200);
    expect(patched.body.updated[0]).toMatchObject({ streakLength: 14, status: 'inactive' });
    // laurel's earlier `archived` status is answered as it is (a listed difference).
    const archived = await s.request('PATCH', '/admin/v1/achievements', { body: [{ id: api.id, status: 'archived' }] });
    expect(archived.body.updated[0].status).toBe('archived');
    const deleted = await s.request('DELETE', `/admin/v1/achievements?ids=${api.id}`);
    expect(deleted.body).toMatchObject({ deleted: [{ id: api.id }], issues: [] });
    // A key is needed for api achievements only; the others get one made from the name.
    const keyless = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'Ten Lessons!', trigger: 'metric', metricId: ids.lessons, metricValue: 20 },
        { name: 'Ten lessons', trigger: 'streak', streakLength: 3 },
        { name: 'No key', trigger: 'api' },
      ],
    });
    expect(keyless.status).toBe(201);
    expect(keyless.body.created.map((a: { key: string }) => a.key)).toEqual(['ten-lessons-2', 'ten-lessons-3']);
    expect(keyless.body.issues).toEqual([expect.objectContaining({ index: 2, severity: 'error', message: expect.stringContaining('key is required') })]);
    // A body outside the schema is caught.
    expect(checkAnswer({ method: 'GET', path: `/admin/v1/achievements/${streak.id}`, status: 200, body: { ...one.body, metricId: null } }).kind).toBe('invalid');
  });

  it('creates an achievement sent without a status active, laurel\'s earlier default, where 1.26.0 says inactive', async () => {
    const spec = JSON.parse(readFileSync(new URL('../support/openapi/trophy-admin-1.26.0.json', import.meta.url), 'utf8'));
    expect(spec.components.schemas.CreateAchievementRequestItem.properties.status.default).toBe('inactive');
    const r = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'First lesson', key: 'first-lesson', trigger: 'metric', metricId: ids.lessons, metricValue: 1 },
        { name: 'Quiet lesson', key: 'quiet-lesson', trigger: 'metric', metricId: ids.lessons, metricValue: 1, status: 'inactive' },
      ],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.created.map((a: { status: string }) => a.status)).toEqual(['active', 'inactive']);
    // As the clients written against laurel expect: it completes at once; the inactive one does not.
    const done = await s.event('lessons', 'default-status', 1);
    expect(done.achievements.map((a: { key: string }) => a.key)).toEqual(['first-lesson']);
  });
});

describe('SDK-style calls of every operation Admin 1.26.0 added since 1.21.1', () => {
  /** The spec, as the tests hold it. */
  const spec = JSON.parse(readFileSync(new URL('../support/openapi/trophy-admin-1.26.0.json', import.meta.url), 'utf8'));
  const older = JSON.parse(readFileSync(new URL('../support/openapi/trophy-admin-1.21.1.json', import.meta.url), 'utf8'));
  const opsOf = (doc: any): string[] => Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([p, item]) => Object.keys(item).filter((m) => ['get', 'post', 'patch', 'delete', 'put'].includes(m)).map((m) => `${m.toUpperCase()} ${p}`));
  const added = opsOf(spec).filter((op) => !opsOf(older).includes(op));

  /** Calls as Trophy's generated clients do (the wire check, test/support/wire-check.ts, validates their answers). */
  const sdkCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.url}/admin/v1${path}`, {
      method,
      headers: { 'X-API-KEY': s.adminKey, 'X-Fern-Language': 'JavaScript', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  it('lists the operations this file covers', () => {
    expect(added.sort()).toEqual([
      'DELETE /achievements', 'GET /achievements', 'GET /achievements/{id}', 'GET /environments', 'GET /settings', 'GET /streaks/settings',
      'PATCH /achievements', 'PATCH /settings', 'PATCH /streaks/settings', 'POST /achievements', 'POST /streaks/reset',
    ]);
  });

  it('answers the spec\'s own request examples within the 1.26.0 schemas', async () => {
    await s.metrics('words-written');
    const answered: string[] = [];
    for (const op of added) {
      const [method, template] = op.split(' ');
      const path = template.replace('{id}', MISSING);
      const operation = spec.paths[template][method.toLowerCase()];
      const examples = Object.values(operation.requestBody?.content?.['application/json']?.examples ?? {}) as { value: unknown }[];
      const query = method === 'DELETE' ? `?ids=${MISSING}` : '';
      for (const body of examples.length === 0 ? [undefined] : examples.map((e) => e.value)) {
        const r = await sdkCall(method, path + query, body);
        const what = `${op} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`;
        if (template === '/achievements/{id}') expect(r.status, what).toBe(404);
        else expect(r.status, what).toBeLessThan(300);
        answered.push(op);
      }
    }
    expect(new Set(answered).size).toBe(added.length);
  });
});

describe('days off', () => {
  const streakOf = async (user: string) => (await s.request('GET', `/api/users/${user}/streak?historyPeriods=5`)).body;

  it('neither extends nor breaks a daily streak, through events, reads and the history', async () => {
    const r = await s.request('PATCH', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', evaluationMode: 'AND', metrics: [{ key: 'lessons', threshold: 1 }], daysOff: [6, 0], freezes: null },
    });
    expect(r.status).toBe(200);
    expect(r.body.daysOff).toEqual([0, 6]);
    // Friday 2026-04-03.
    await s.setClock('2026-04-03T10:00:00Z');
    expect((await s.event('lessons', 'off1', 1)).currentStreak).toMatchObject({ length: 1, extended: true });
    await s.event('lessons', 'off2', 1);
    // Saturday: an event does not extend the streak.
    await s.setClock('2026-04-04T10:00:00Z');
    expect((await s.event('lessons', 'off1', 1)).currentStreak).toMatchObject({ length: 1, extended: false });
    // Sunday, no event: still alive, and it lasts through Monday.
    await s.setClock('2026-04-05T10:00:00Z');
    expect(await streakOf('off1')).toMatchObject({ length: 1, expires: '2026-04-06' });
    // Monday: extended to 2, the weekend bridged.
    await s.setClock('2026-04-06T10:00:00Z');
    expect((await s.event('lessons', 'off1', 1)).currentStreak).toMatchObject({ length: 2, extended: true, started: '2026-04-03' });
    const streak = await streakOf('off1');
    expect(streak.streakHistory.map((h: { length: number; usedPause: boolean }) => [h.length, h.usedPause])).toEqual([
      [0, false], [1, false], [1, true], [1, true], [2, false],
    ]);
    // off2 acted on Friday only; Tuesday without Monday loses the streak (the weekend is no excuse).
    await s.setClock('2026-04-07T10:00:00Z');
    expect((await streakOf('off2')).length).toBe(0);
    expect((await s.event('lessons', 'off2', 1)).currentStreak).toMatchObject({ length: 1, started: '2026-04-07' });
  });

  it('are refused for other frequencies, and dropped when the rule stops being daily', async () => {
    const weekly = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { frequency: 'weekly' } });
    expect(weekly.status).toBe(200);
    expect(weekly.body.daysOff).toEqual([]);
    const daily = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { frequency: 'daily' } });
    expect(daily.body.daysOff).toEqual([]);
  });

  it('are set by the earlier PUT form too (the dashboard\'s), and kept when it leaves them out', async () => {
    const rule = { frequency: 'daily', evaluation: 'all', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: null };
    let r = await s.request('PUT', '/admin/v1/streaks/settings', { body: { ...rule, daysOff: [5, 1] } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.daysOff).toEqual([1, 5]);
    r = await s.request('PUT', '/admin/v1/streaks/settings', { body: rule });
    expect(r.body.daysOff).toEqual([1, 5]);
    r = await s.request('PUT', '/admin/v1/streaks/settings', { body: { ...rule, frequency: 'weekly', daysOff: [1] } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'unprocessable', error: expect.stringContaining('daily streaks only') });
    r = await s.request('PUT', '/admin/v1/streaks/settings', { body: { ...rule, daysOff: [] } });
    expect(r.body.daysOff).toEqual([]);
  });
});
