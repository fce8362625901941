/**
 * Limits against farming (docs/api.md, "Fair play"), with the manual clock, on single Redis and on
 * the Cluster: a metric's `limits` per hour, day and week on the user's clock (their zone), the
 * event's `limited`, the total, achievements, points and boards seeing only the part counted, 100
 * concurrent events of one user, a batch; a points trigger's `cooldownSeconds` and `maxAwards`
 * (a metric trigger's and a streak trigger's), a time trigger's maxAwards, the kinds that refuse them;
 * the Admin API's checks; a metric without limits unchanged; a void frees what its event counted in
 * the limit's period. A restore repeats what was counted and what a void freed (single Redis, as
 * the other restore tests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchProcessor } from '../../src/engine/batches/process.js';
import { restoreServer } from '../support/restore.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

/** Makes a metric with a limit; answers its id. */
async function limitedMetric(s: TestServer, key: string, limits: unknown): Promise<string> {
  const r = await s.request('POST', '/admin/v1/metrics', { body: [{ name: key, key, limits }] });
  expect(r.status, r.text).toBe(201);
  expect(r.body.created[0].limits).toEqual(limits);
  return r.body.created[0].id as string;
}

describe.each(targets())('limits on %s', (target) => {
  let s: TestServer;
  const send = async (metric: string, user: string, value: number, tz?: string) => {
    const r = await s.request('POST', `/api/metrics/${metric}/event`, { body: { user: tz === undefined ? { id: user } : { id: user, tz }, value } });
    expect(r.status, r.text).toBe(201);
    return r.body;
  };
  const total = async (user: string, metric: string) => {
    const r = await s.request('GET', `/api/users/${user}/metrics/${metric}`);
    expect(r.status, r.text).toBe(200);
    return r.body.current as number;
  };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-03-02T12:00:00Z');
  });
  afterAll(async () => { await s?.close(); });

  it('checks limits in the Admin API: shown when set, taken off with null, bad ones refused', async () => {
    const bad = await s.request('POST', '/admin/v1/metrics', {
      body: [
        { name: 'a', key: 'bad-a', limits: { max: 0, period: 'day' } },
        { name: 'b', key: 'bad-b', limits: { max: -1, period: 'day' } },
        { name: 'c', key: 'bad-c', limits: { max: 5, period: 'month' } },
        { name: 'd', key: 'bad-d', limits: { max: 5 } },
        { name: 'e', key: 'bad-e', limits: { max: '5', period: 'day' } },
        // Counted to 9 decimals: a smaller max would let nothing count.
        { name: 'h', key: 'bad-h', limits: { max: 1e-10, period: 'hour' } },
      ],
    });
    expect(bad.status, bad.text).toBe(200);
    expect(bad.body.created).toEqual([]);
    expect(bad.body.issues.map((i: { index: number; severity: string; message: string }) => [i.index, i.severity, i.message])).toEqual([
      [0, 'error', 'limits.max must be >= 1e-9'],
      [1, 'error', 'limits.max must be >= 1e-9'],
      [2, 'error', 'limits.period must be one of "hour", "day", "week"'],
      [3, 'error', 'limits.period is required'],
      [4, 'error', 'limits.max must be a finite number'],
      [5, 'error', 'limits.max must be >= 1e-9'],
    ]);
    expect((await limitedMetric(s, 'tiny-limited', { max: 1e-9, period: 'hour' })).length).toBeGreaterThan(0);
    const unknown = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'f', key: 'bad-f', limits: { max: 5, period: 'day', per: 'user' } }] });
    expect(unknown.body.issues).toEqual([{ index: 0, severity: 'error', message: 'unknown field "limits.per"' }]);
    // Not an array of items: the whole body refused with its code.
    const shape = await s.request('POST', '/admin/v1/metrics', { body: { name: 'g', key: 'bad-g', limits: { max: 5, period: 'day' } } });
    expect(shape.status, shape.text).toBe(400);
    expect(shape.body.code).toEqual(expect.any(String));

    const id = await limitedMetric(s, 'admin-limited', { max: 5, period: 'day' });
    expect((await s.request('GET', `/admin/v1/metrics/${id}`)).body.limits).toEqual({ max: 5, period: 'day' });
    const changed = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, limits: { max: 2.5, period: 'hour' } }] });
    expect(changed.body.updated[0].limits).toEqual({ max: 2.5, period: 'hour' });
    const refused = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, limits: { max: 2, period: 'year' } }] });
    expect(refused.body.updated).toEqual([]);
    expect(refused.body.issues[0]).toMatchObject({ severity: 'error', message: 'limits.period must be one of "hour", "day", "week"' });
    const kept = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, name: 'renamed' }] });
    expect(kept.body.updated[0].limits).toEqual({ max: 2.5, period: 'hour' });
    const off = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, limits: null }] });
    expect(off.body.updated[0]).not.toHaveProperty('limits');
  });

  it('answers the ignored part of a value near the largest double as JSON', async () => {
    await limitedMetric(s, 'huge', { max: 1e12, period: 'day' });
    expect((await send('huge', 'hugo', 1e12)).total).toBe(1e12);
    const r = await s.request('POST', '/api/metrics/huge/event', { body: { user: { id: 'hugo' }, value: 1e300 } });
    expect(r.status, r.text).toBe(201);
    expect(JSON.parse(r.text).limited, r.text).toEqual({ counted: 0, ignored: 1e300 });
    const fraction = await s.request('POST', '/api/metrics/huge/event', { body: { user: { id: 'hugo' }, value: 0.1 + 0.2 } });
    expect(JSON.parse(fraction.text).limited).toEqual({ counted: 0, ignored: 0.3 });
  });

  it('leaves a metric without limits as it was: no limits in its view, no limited in the answer', async () => {
    const { plain } = await s.metrics('plain');
    expect((await s.request('GET', `/admin/v1/metrics/${plain}`)).body).not.toHaveProperty('limits');
    const first = await send('plain', 'pia', 1_000_000);
    expect(first).not.toHaveProperty('limited');
    expect(first.total).toBe(1_000_000);
  });

  it('counts the first max of a day on the user\'s clock; achievements, points and boards see that part only', async () => {
    const id = await limitedMetric(s, 'steps', { max: 10, period: 'day' });
    const ach = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'Ten', key: 'steps-10', trigger: 'metric', metricId: id, metricValue: 10 },
        { name: 'Twelve', key: 'steps-12', trigger: 'metric', metricId: id, metricValue: 12 },
      ],
    });
    expect(ach.status, ach.text).toBe(201);
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'Step XP', key: 'step-xp', triggers: [{ type: 'metric', metricId: id, metricThreshold: 1, points: 1, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Steps', key: 'steps-all', status: 'active', rankBy: 'metric', metricId: id, maxParticipants: 10 }],
    });
    expect(board.status, board.text).toBe(201);

    // New York: 07:00 local.
    const ny = 'America/New_York';
    expect(await send('steps', 'ana', 4, ny)).not.toHaveProperty('limited');
    await send('steps', 'ana', 4);
    const third = await send('steps', 'ana', 4);
    expect(third.limited).toEqual({ counted: 2, ignored: 2 });
    expect(third.total).toBe(10);
    expect(third.achievements.map((a: { key: string }) => a.key)).toEqual(['steps-10']);
    const fourth = await send('steps', 'ana', 5);
    expect(fourth.limited).toEqual({ counted: 0, ignored: 5 });
    expect(fourth.points).toEqual({});
    // 23:30 in New York (04:30 UTC the next day): still the user's day.
    await s.setClock('2026-03-03T04:30:00Z');
    expect((await send('steps', 'ana', 3)).limited).toEqual({ counted: 0, ignored: 3 });
    expect(await total('ana', 'steps')).toBe(10);
    const points = await s.request('GET', '/api/users/ana/points/step-xp');
    expect(points.body.total).toBe(10);
    const ranks = await s.request('GET', '/api/leaderboards/steps-all');
    expect(ranks.body.rankings.map((r: { userId: string; value: number }) => [r.userId, r.value])).toEqual([['ana', 10]]);
    const achievements = await s.request('GET', '/api/users/ana/achievements?includeIncomplete=true');
    expect(achievements.body.find((a: { key: string }) => a.key === 'steps-12').achievedAt ?? null).toBeNull();

    // 00:30 in New York: a new day counts again, up to the limit.
    await s.setClock('2026-03-03T05:30:00Z');
    const next = await send('steps', 'ana', 3);
    expect(next).not.toHaveProperty('limited');
    expect(next.total).toBe(13);
    expect(next.achievements.map((a: { key: string }) => a.key)).toEqual(['steps-12']);
    expect((await send('steps', 'ana', 9)).limited).toEqual({ counted: 7, ignored: 2 });
    expect((await s.request('GET', '/api/users/ana/points/step-xp')).body.total).toBe(20);
    const summary = await s.request('GET', '/api/users/ana/metrics/steps/event-summary?aggregation=daily&startDate=2026-03-02&endDate=2026-03-03');
    expect(summary.body.map((d: { date: string; total: number }) => [d.date, d.total])).toEqual([['2026-03-02', 10], ['2026-03-03', 20]]);
    // Another user has limits of their own.
    expect(await send('steps', 'bo', 10)).not.toHaveProperty('limited');
  });

  it('counts per local hour (a half-hour zone) and per ISO week (Monday in the user\'s zone)', async () => {
    await limitedMetric(s, 'posts', { max: 3, period: 'hour' });
    await limitedMetric(s, 'lessons', { max: 5, period: 'week' });
    const kolkata = 'Asia/Kolkata';
    // 10:59 in Kolkata (05:29 UTC).
    await s.setClock('2026-03-04T05:29:00Z');
    expect((await send('posts', 'ravi', 5, kolkata)).limited).toEqual({ counted: 3, ignored: 2 });
    // 11:00 in Kolkata: the next hour.
    await s.setClock('2026-03-04T05:30:00Z');
    expect((await send('posts', 'ravi', 2)).limited).toBeUndefined();
    expect((await send('posts', 'ravi', 2)).limited).toEqual({ counted: 1, ignored: 1 });
    expect(await total('ravi', 'posts')).toBe(6);

    // Sunday 23:00 in Tokyo (14:00 UTC): the week of Monday March 2.
    const tokyo = 'Asia/Tokyo';
    await s.setClock('2026-03-08T14:00:00Z');
    expect((await send('lessons', 'yui', 4, tokyo)).limited).toBeUndefined();
    expect((await send('lessons', 'yui', 4)).limited).toEqual({ counted: 1, ignored: 3 });
    // Monday 00:30 in Tokyo (still Sunday in UTC): a new week.
    await s.setClock('2026-03-08T15:30:00Z');
    expect((await send('lessons', 'yui', 4)).limited).toBeUndefined();
    expect(await total('yui', 'lessons')).toBe(9);
  });

  it('lets 100 concurrent events of one user count exactly max', { timeout: 30_000 }, async () => {
    await limitedMetric(s, 'clicks', { max: 37, period: 'day' });
    const answers = await Promise.all(Array.from({ length: 100 }, () => send('clicks', 'racer', 1)));
    const counted = answers.reduce((sum, a) => sum + (a.limited === undefined ? 1 : a.limited.counted), 0);
    const ignored = answers.reduce((sum, a) => sum + (a.limited === undefined ? 0 : a.limited.ignored), 0);
    expect([counted, ignored]).toEqual([37, 63]);
    expect(await total('racer', 'clicks')).toBe(37);
  });

  it('applies the limit to a batch\'s items', { timeout: 30_000 }, async () => {
    await limitedMetric(s, 'likes', { max: 6, period: 'day' });
    const items = Array.from({ length: 10 }, (_, i) => ({ key: 'likes', user: { id: i % 2 === 0 ? 'kai' : 'lea' }, value: 2 }));
    const r = await s.request('POST', '/admin/v1/metrics/events', { body: items });
    expect(r.status, r.text).toBe(202);
    const worker = new BatchProcessor(s.api.services);
    try {
      await worker.drain();
    } finally {
      await worker.close();
    }
    expect([await total('kai', 'likes'), await total('lea', 'likes')]).toEqual([6, 6]);
  });

  it('frees what a voided event counted in its period of the limit, and nothing of another period', async () => {
    await limitedMetric(s, 'reps', { max: 10, period: 'day' });
    const voidOne = async (eventId: string) => {
      const r = await s.request('POST', '/admin/v1/events/void', { body: [{ eventId, reason: 'farmed' }] });
      expect(r.status, r.text).toBe(200);
      expect(r.body.issues).toEqual([]);
      return r.body.voided[0];
    };
    await s.setClock('2026-04-05T12:00:00Z');
    const yesterday = await send('reps', 'vic', 3);
    await s.setClock('2026-04-06T12:00:00Z');
    const first = await send('reps', 'vic', 6);
    const second = await send('reps', 'vic', 6);
    expect(second.limited).toEqual({ counted: 4, ignored: 2 });
    expect(await total('vic', 'reps')).toBe(13);
    // The first event's 6 leave the day's sum (10 - 6): 6 of the next 8 count.
    expect(await voidOne(first.eventId)).toMatchObject({ value: 6, total: 7 });
    const next = await send('reps', 'vic', 8);
    expect(next.limited).toEqual({ counted: 6, ignored: 2 });
    expect(await total('vic', 'reps')).toBe(13);
    // Yesterday's event frees nothing of today's.
    expect(await voidOne(yesterday.eventId)).toMatchObject({ value: 3, total: 10 });
    expect((await send('reps', 'vic', 1)).limited).toEqual({ counted: 0, ignored: 1 });
    // The part a limit let count is what a void frees: the second event's 4.
    expect(await voidOne(second.eventId)).toMatchObject({ value: 4, total: 6 });
    expect((await send('reps', 'vic', 5)).limited).toEqual({ counted: 4, ignored: 1 });
    expect(await total('vic', 'reps')).toBe(10);
  });

  it('keeps a trigger\'s cooldownSeconds and maxAwards per user, and refuses bad ones', async () => {
    const { quiz } = await s.metrics('quiz');
    const bad = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'Bad', key: 'bad-xp', triggers: [
          { type: 'metric', metricId: quiz, metricThreshold: 1, points: 1, cooldownSeconds: 0 },
        ],
      }],
    });
    expect(bad.status).toBe(200);
    expect(bad.body.issues[0]).toMatchObject({ severity: 'error' });
    const r = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'Quiz XP', key: 'quiz-xp', triggers: [
          { type: 'metric', metricId: quiz, metricThreshold: 1, points: 10, status: 'active', cooldownSeconds: 60 },
          { type: 'metric', metricId: quiz, metricThreshold: 1, points: 1, status: 'active', maxAwards: { count: 2, period: 'day' } },
        ],
      }],
    });
    expect(r.status, r.text).toBe(201);
    const system = r.body.created[0].id as string;
    const [cool, capped] = r.body.created[0].triggers as { id: string; cooldownSeconds?: number; maxAwards?: unknown }[];
    expect([cool.cooldownSeconds, capped.maxAwards]).toEqual([60, { count: 2, period: 'day' }]);
    const path = `/admin/v1/points/${system}/triggers`;
    const refused = await s.request('POST', path, {
      body: [
        { type: 'metric', metricId: quiz, metricThreshold: 1, points: 1, maxAwards: { count: 2, period: 'month' } },
        { type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, cooldownSeconds: 60 },
        { type: 'user_creation', points: 1, maxAwards: { count: 1, period: 'week' } },
      ],
    });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body.issues.map((i: { index: number }) => i.index)).toEqual([0, 1, 2]);
    expect(refused.body.issues[1].message).toContain('cooldownSeconds applies to metric and streak triggers only');

    const awarded = (answer: { points: Record<string, { awards: { trigger: { id: string } }[] }> }) =>
      (answer.points['quiz-xp']?.awards ?? []).map((a) => (a.trigger.id === cool.id ? 'cool' : 'capped'));
    await s.setClock('2026-03-10T12:00:00Z');
    expect(awarded(await send('quiz', 'max', 1))).toEqual(['cool', 'capped']);
    await s.setClock('2026-03-10T12:00:59Z');
    expect(awarded(await send('quiz', 'max', 1))).toEqual(['capped']);
    await s.setClock('2026-03-10T12:01:00Z');
    expect(awarded(await send('quiz', 'max', 1))).toEqual(['cool']);
    // Another user's cooldown is their own.
    expect(awarded(await send('quiz', 'nia', 1))).toEqual(['cool', 'capped']);
    // The next UTC day (the user's zone): the cap counts again.
    await s.setClock('2026-03-11T00:00:00Z');
    expect(awarded(await send('quiz', 'max', 1))).toEqual(['cool', 'capped']);
    expect((await s.request('GET', '/api/users/max/points/quiz-xp')).body.total).toBe(33);

    // Taken off: every event awards again.
    const off = await s.request('PATCH', path, { body: [{ id: cool.id, cooldownSeconds: null }] });
    expect(off.status, off.text).toBe(200);
    expect(off.body.updated[0]).not.toHaveProperty('cooldownSeconds');
    expect(awarded(await send('quiz', 'max', 1))).toEqual(['cool', 'capped']);
  });
});

describe.each(targets())('a streak trigger\'s maxAwards on %s', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    // Monday.
    await s.setClock('2026-03-02T12:00:00Z');
  });
  afterAll(async () => { await s?.close(); });

  it('pays at most count extensions a week', async () => {
    const { habit } = await s.metrics('habit');
    const rule = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: habit, threshold: 1 }] } });
    expect(rule.status, rule.text).toBe(200);
    const r = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'Habit XP', key: 'habit-xp',
        triggers: [{ type: 'streak', streakLength: 1, points: 5, status: 'active', maxAwards: { count: 2, period: 'week' } }],
      }],
    });
    expect(r.status, r.text).toBe(201);
    const paid: number[] = [];
    for (const day of ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-09']) {
      await s.setClock(`${day}T12:00:00Z`);
      const answer = await s.event('habit', 'hana', 1);
      expect(answer.currentStreak.extended).toBe(true);
      paid.push(answer.points['habit-xp']?.awards.length ?? 0);
    }
    expect(paid).toEqual([1, 1, 0, 1]);
    expect((await s.request('GET', '/api/users/hana/points/habit-xp')).body.total).toBe(15);
  });
});

describe.each(targets())('a time trigger\'s maxAwards on %s', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-03-02T00:00:00Z');
  });
  afterAll(async () => { await s?.close(); });

  it('pays at most count due awards a day of the user\'s clock, whenever they accrue; other kinds refuse it', async () => {
    const { ticks } = await s.metrics('ticks');
    await s.event('ticks', 'tim', 1);
    const ach = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'One', key: 'tick-1', trigger: 'metric', metricId: ticks, metricValue: 1 }] });
    expect(ach.status, ach.text).toBe(201);
    const refused = await s.request('POST', '/admin/v1/points', {
      body: [
        { name: 'A', key: 'a-xp', triggers: [{ type: 'achievement', achievementId: ach.body.created[0].id, points: 1, maxAwards: { count: 1, period: 'day' } }] },
        { name: 'B', key: 'b-xp', triggers: [{ type: 'user_creation', points: 1, maxAwards: { count: 1, period: 'day' } }] },
        { name: 'C', key: 'c-xp', triggers: [{ type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, cooldownSeconds: 60 }] },
      ],
    });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body.issues.map((i: { index: number; message: string }) => [i.index, i.message])).toEqual([
      [0, expect.stringContaining('maxAwards applies to metric, streak and time triggers only')],
      [1, expect.stringContaining('maxAwards applies to metric, streak and time triggers only')],
      [2, expect.stringContaining('cooldownSeconds applies to metric and streak triggers only')],
    ]);
    const r = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'Energy', key: 'energy', triggers: [{ type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, status: 'active', maxAwards: { count: 3, period: 'day' } }] }],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.created[0].triggers[0].maxAwards).toEqual({ count: 3, period: 'day' });
    const energy = async () => {
      const p = await s.request('GET', '/api/users/tim/points/energy');
      expect(p.status, p.text).toBe(200);
      return p.body as { total: number; awards: { date: string }[] };
    };
    // 36 hourly awards fall due, accrued at once: three on each of the two days.
    await s.setClock('2026-03-03T12:00:00Z');
    const first = await energy();
    expect(first.total).toBe(6);
    expect(first.awards.map((a) => a.date).sort()).toEqual([
      '2026-03-02T01:00:00.000Z', '2026-03-02T02:00:00.000Z', '2026-03-02T03:00:00.000Z',
      '2026-03-03T00:00:00.000Z', '2026-03-03T01:00:00.000Z', '2026-03-03T02:00:00.000Z',
    ]);
    // Accrued again later that day: the day's three are paid; the next day counts anew, and the
    // awards held back are not paid later.
    await s.setClock('2026-03-03T20:00:00Z');
    expect((await energy()).total).toBe(6);
    await s.setClock('2026-03-04T05:00:00Z');
    expect((await energy()).total).toBe(9);
    // An event accrues them too (00:00 and 01:00 of the 5th; the read after it finds nothing more due).
    await s.setClock('2026-03-05T01:00:00Z');
    await s.event('ticks', 'tim', 1);
    const { redis, keys } = s.api.services;
    expect(await redis.hget(keys.forUser('_', 'tim').user, 'pt:' + r.body.created[0].id)).toBe('11');
    expect((await energy()).total).toBe(11);
  });
});

describe('a restore', () => {
  it('repeats what the limit counted, whatever the limit says after', { timeout: 60_000 }, async () => {
    // No scheduled snapshot meanwhile (one after the events would leave the restore nothing to replay):
    // the first, due as the workers start, taken before them.
    let s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '168h' } });
    await s.workers!.testing.snapshotIdle();
    const { prefix } = s;
    try {
      await s.setClock('2026-03-02T10:00:00Z');
      const id = await limitedMetric(s, 'steps', { max: 10, period: 'day' });
      const sent = [];
      for (const value of [6, 6, 6]) sent.push(await s.event('steps', 'ana', value));
      const before = (await s.request('GET', '/api/users/ana/metrics/steps')).body.current;
      expect(before).toBe(10);
      // A void frees what the first event counted (the day's sum 10 - 6), and a restore repeats it.
      const voided = await s.request('POST', '/admin/v1/events/void', { body: [{ eventId: sent[0].eventId, reason: 'farmed' }] });
      expect(voided.body.voided).toEqual([expect.objectContaining({ value: 6, total: 4 })]);
      // A higher limit after the events: a restore replays what they counted.
      const raised = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, limits: { max: 100, period: 'day' } }] });
      expect(raised.status, raised.text).toBe(200);
      const restored = await restoreServer(s);
      s = restored.server;
      expect(restored.result).toMatchObject({ failed: 0, replayed: 4 });
      await s.setClock('2026-03-02T11:00:00Z');
      expect((await s.request('GET', '/api/users/ana/metrics/steps')).body.current).toBe(4);
      // The day's sum came back too (4 after the void): 96 more count today under the raised limit.
      const next = await s.event('steps', 'ana', 100);
      expect(next.limited).toEqual({ counted: 96, ignored: 4 });
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
});
