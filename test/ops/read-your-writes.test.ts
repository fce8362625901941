/**
 * One installation, one view (docs/api.md, "Errors"): an Admin write is answered once every
 * api process applies it. Against `laurel api` with the default number of api processes on one
 * port (test/support/api-processes.ts): after each write's answer, requests on connections opened
 * before it (each accepted by whichever process the kernel chose) must all see the change. The
 * manual clock moved, then the day read and events recorded on it (a streak each day); a control
 * ratio set, then the clock moved back before it and users created; a key created then revoked, each used at once; a tenant
 * created and archived, each used at once; the streak rule changed, then events sent. Application
 * writes too: a tenant's achievement statistics (cached per process) after each new user and
 * completion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killCliProcesses } from '../support/cli.js';
import { startApiProcesses, type Answer, type ApiProcesses } from '../support/api-processes.js';
import { deletePrefix } from '../support/server.js';
import { loadSettings } from '../../src/lib/settings.js';

/** Rounds of each scenario, and requests sent at once after each write. */
const ROUNDS = 30;
const AT_ONCE = 8;
const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-03-02T12:00:00Z');

let p: ApiProcesses;

beforeAll(async () => {
  p = await startApiProcesses({ LAUREL_CLOCK: 'manual' });
  expect(p.count).toBeGreaterThanOrEqual(2);
  const metric = await p.request('POST', '/admin/v1/metrics', { body: [{ name: 'Lessons', key: 'lessons' }] });
  expect(metric.status, metric.text).toBe(201);
  const rule = await p.request('PUT', '/admin/v1/streaks/settings', {
    body: { frequency: 'daily', metrics: [{ metricId: metric.body.created[0].id, threshold: 1 }] },
  });
  expect(rule.status, rule.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await p?.close();
  killCliProcesses();
  if (p) await deletePrefix(loadSettings(), p.prefix);
});

/** Each answer's status, with its body where it is not `status`. */
function statuses(answers: Answer[], status: number): string[] {
  return answers.filter((a) => a.status !== status).map((a) => `${a.status} ${a.text}`);
}

async function setClock(ms: number): Promise<void> {
  const r = await p.request('PUT', '/admin/v1/clock', { body: { now: new Date(ms).toISOString() } });
  expect(r.status, r.text).toBe(200);
}

describe('with the default number of api processes', () => {
  it('reads the time the manual clock was just set to on every process', { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const at = T0 + round * 3_600_000;
      const connections = await p.connections(AT_ONCE);
      await setClock(at);
      const answers = await connections.send('GET', '/admin/v1/clock');
      expect(answers.map((a) => a.body.now), `round ${round}`).toEqual(answers.map(() => new Date(at).toISOString()));
    }
  });

  it('records events on the day the clock was just moved to: a streak one longer each day', { timeout: 120_000 }, async () => {
    const start = T0 + 100 * DAY_MS;
    for (let day = 0; day < ROUNDS; day++) {
      const connections = await p.connections(AT_ONCE);
      await setClock(start + day * DAY_MS);
      const answers = await connections.send('POST', '/api/metrics/lessons/event', (i) => ({ body: { user: { id: `streak-${i}` }, value: 1 } }));
      expect(statuses(answers, 201)).toEqual([]);
      expect(answers.map((a) => a.body.currentStreak.length), `day ${day}`).toEqual(answers.map(() => day + 1));
    }
  });

  it('judges a user by the control ratio in force at the time the clock was just set to', { timeout: 120_000 }, async () => {
    const start = T0 + 200 * DAY_MS;
    for (let round = 0; round < ROUNDS; round++) {
      // A ratio set at the day's noon, then the clock back an hour: a user created now is judged by
      // the ratio before (none in the first round). A process still at noon would judge by the new one.
      const noon = start + round * DAY_MS;
      await setClock(noon);
      const ratio = round % 2;
      const set = await p.request('PUT', '/admin/v1/notifications/settings', { body: { controlRatio: ratio } });
      expect(set.status, set.text).toBe(200);
      const connections = await p.connections(AT_ONCE);
      await setClock(noon - 3_600_000);
      const answers = await connections.send('POST', '/api/users', (i) => ({ body: { id: `control-${round}-${i}` } }));
      expect(statuses(answers, 201)).toEqual([]);
      const before = round === 0 ? 0 : (round - 1) % 2;
      expect(answers.map((a) => a.body.control), `round ${round}`).toEqual(answers.map(() => before === 1));
    }
  });

  it('takes a key at once, and refuses it at once once revoked', { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      let connections = await p.connections(AT_ONCE);
      const made = await p.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', name: `k${round}` } });
      expect(made.status, made.text).toBe(201);
      expect(statuses(await connections.send('GET', '/api/achievements', { key: made.body.key }), 200), `round ${round}`).toEqual([]);
      connections = await p.connections(AT_ONCE);
      const revoked = await p.request('DELETE', `/admin/v1/api-keys?ids=${made.body.id}`);
      expect(revoked.body.deleted, revoked.text).toHaveLength(1);
      expect(statuses(await connections.send('GET', '/api/achievements', { key: made.body.key }), 401), `round ${round}`).toEqual([]);
    }
  });

  it('serves a tenant at once, and refuses it at once once archived', { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      let connections = await p.connections(AT_ONCE);
      const made = await p.request('POST', '/admin/v1/tenants', { body: [{ customerId: `acme-${round}`, name: 'Acme' }] });
      expect(made.status, made.text).toBe(201);
      const event = (i: number) => ({ body: { user: { id: `t${i}` }, value: 1 }, tenant: `acme-${round}` });
      expect(statuses(await connections.send('POST', '/api/metrics/lessons/event', event), 201), `round ${round}`).toEqual([]);
      connections = await p.connections(AT_ONCE);
      const archived = await p.request('PATCH', '/admin/v1/tenants', { body: [{ id: made.body.created[0].id, status: 'archived' }] });
      expect(archived.status, archived.text).toBe(200);
      expect(statuses(await connections.send('POST', '/api/metrics/lessons/event', event), 404), `round ${round}`).toEqual([]);
    }
  });

  it('extends streaks by the streak rule just set', { timeout: 120_000 }, async () => {
    const metric = (await p.request('GET', '/admin/v1/metrics')).body[0].id as string;
    await setClock(T0 + 300 * DAY_MS);
    for (let round = 0; round < ROUNDS; round++) {
      const connections = await p.connections(AT_ONCE);
      // A value of 2 extends a streak whose threshold is 1, not one whose threshold is 3.
      const threshold = round % 2 === 0 ? 1 : 3;
      const rule = await p.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: metric, threshold }] } });
      expect(rule.status, rule.text).toBe(200);
      const answers = await connections.send('POST', '/api/metrics/lessons/event', (i) => ({ body: { user: { id: `rule-${round}-${i}` }, value: 2 } }));
      expect(statuses(answers, 201)).toEqual([]);
      expect(answers.map((a) => a.body.currentStreak.length), `round ${round}`).toEqual(answers.map(() => (threshold === 1 ? 1 : 0)));
    }
  });

  it('counts each new user and completion in the achievement statistics every process reads next', { timeout: 120_000 }, async () => {
    const tenant = 'stats';
    const made = await p.request('POST', '/admin/v1/tenants', { body: [{ customerId: tenant, name: 'Stats' }] });
    expect(made.status, made.text).toBe(201);
    const metric = await p.request('POST', '/admin/v1/metrics', { body: [{ name: 'Quizzes', key: 'quizzes' }] });
    expect(metric.status, metric.text).toBe(201);
    const achievements = await p.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'One quiz', key: 'quiz-1', trigger: 'metric', metricId: metric.body.created[0].id, metricValue: 1 },
        { name: 'Signed up', key: 'signed-up', trigger: 'api' },
      ],
    });
    expect(achievements.status, achievements.text).toBe(201);
    const expected = { users: 0, 'quiz-1': 0, 'signed-up': 0 };
    const rarity = (n: number) => Math.round((n / expected.users) * 10000) / 100;
    for (let round = 0; round < ROUNDS; round++) {
      // Every process reads (and caches) the statistics, then one of them takes a new user: by an
      // event that completes quiz-1, a completion of signed-up, or an identification alone.
      const warm = await p.connections(AT_ONCE);
      const reads = await p.connections(AT_ONCE);
      expect(statuses(await warm.send('GET', '/api/achievements', { tenant }), 200)).toEqual([]);
      const user = { id: `stats-${round}` };
      const kind = round % 3;
      const write = kind === 0 ? await p.request('POST', '/api/metrics/quizzes/event', { body: { user, value: 1 }, tenant })
        : kind === 1 ? await p.request('POST', '/api/achievements/signed-up/complete', { body: { user }, tenant })
        : await p.request('POST', '/api/users', { body: user, tenant });
      expect(write.status, write.text).toBe(201);
      expected.users++;
      if (kind === 0) expected['quiz-1']++;
      if (kind === 1) expected['signed-up']++;
      const answers = await reads.send('GET', '/api/achievements', { tenant });
      expect(statuses(answers, 200)).toEqual([]);
      const seen = answers.map((a) => Object.fromEntries((a.body as { key: string; completions: number; rarity: number }[])
        .map((x) => [x.key, [x.completions, x.rarity]])));
      const want = { 'quiz-1': [expected['quiz-1'], rarity(expected['quiz-1'])], 'signed-up': [expected['signed-up'], rarity(expected['signed-up'])] };
      expect(seen, `round ${round}`).toEqual(answers.map(() => want));
    }
  });
});
