/**
 * Users over HTTP: explicit identification, the spec's rules (subscribeToEmails, attribute keys,
 * time zones), preferences, metrics and event summaries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';

const s = useTestServer({ clock: 'manual' });

beforeAll(async () => {
  await s.metrics('lessons', 'quizzes');
  await s.attributes('user', 'plan', 'city');
  await s.setClock('2026-03-10T12:00:00Z');
});

const enc = encodeURIComponent;

describe('identification', () => {
  it('creates a user with POST /users: 201, subscribeToEmails true by default', async () => {
    const r = await s.request('POST', '/v1/users', { body: { id: 'u1', name: 'Una', attributes: { plan: 'pro' } } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: 'u1', email: null, name: 'Una', tz: null, deviceTokens: null, subscribeToEmails: true,
      attributes: { plan: 'pro' }, control: false, created: '2026-03-10T12:00:00.000Z', updated: '2026-03-10T12:00:00.000Z',
    });
  });

  it('shows a user an event created with updated as created and subscribed, until an update', async () => {
    await s.setClock('2026-03-10T12:30:00Z');
    expect((await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'by-event' }, value: 1 } })).status).toBe(201);
    await s.setClock('2026-03-10T12:40:00Z');
    await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'by-event' }, value: 1 } });
    expect((await s.request('GET', '/v1/users/by-event')).body).toMatchObject({
      subscribeToEmails: true, created: '2026-03-10T12:30:00.000Z', updated: '2026-03-10T12:30:00.000Z',
    });
    expect((await s.request('PATCH', '/v1/users/by-event', { body: { name: 'E' } })).body).toMatchObject({
      subscribeToEmails: true, created: '2026-03-10T12:30:00.000Z', updated: '2026-03-10T12:40:00.000Z',
    });
    await s.setClock('2026-03-10T12:00:00Z');
  });

  it('refuses to create an existing user with 422 (never 409) and changes nothing', async () => {
    const r = await s.request('POST', '/v1/users', { body: { id: 'u1', name: 'Other' } });
    expect(r.status).toBe(422);
    expect(r.body.error).toContain('already exists');
    expect((await s.request('GET', '/v1/users/u1')).body.name).toBe('Una');
  });

  it('treats null fields as not provided', async () => {
    await s.request('POST', '/v1/users', { body: { id: 'nul', name: 'Nul', email: 'n@example.com' } });
    const r = await s.request('PATCH', '/v1/users/nul', { body: { name: null, email: null, tz: null, attributes: null } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Nul', email: 'n@example.com' });
  });

  it('upserts with PUT: 201 when created, 200 when updated, keeping fields not sent', async () => {
    await s.setClock('2026-03-10T13:00:00Z');
    const created = await s.request('PUT', '/v1/users/u2', { body: { email: 'u2@example.com', tz: 'Europe/Paris' } });
    expect(created.status).toBe(201);
    await s.setClock('2026-03-10T14:00:00Z');
    const updated = await s.request('PUT', '/api/users/u2', { body: { name: 'Two', deviceTokens: ['t1', 't2'] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: 'u2', email: 'u2@example.com', name: 'Two', tz: 'Europe/Paris', deviceTokens: ['t1', 't2'],
      created: '2026-03-10T13:00:00.000Z', updated: '2026-03-10T14:00:00.000Z',
    });
  });

  it('updates with PATCH only the fields passed, and 404s for an unknown user', async () => {
    const r = await s.request('PATCH', '/v1/users/u2', { body: { attributes: { city: 'Lyon' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Two', attributes: { city: 'Lyon' } });
    const missing = await s.request('PATCH', '/v1/users/nobody', { body: { name: 'X' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain('nobody');
    expect((await s.request('GET', '/v1/users/nobody')).status).toBe(404);
  });

  it('refuses subscribeToEmails true without an email (422) and changes nothing', async () => {
    for (const [method, path] of [['POST', '/v1/users'], ['PUT', '/v1/users/sub1']] as const) {
      const r = await s.request(method, path, { body: { id: 'sub1', name: 'S', subscribeToEmails: true } });
      expect(r.status).toBe(422);
      expect(r.body.error).toMatch(/subscribeToEmails/);
    }
    expect((await s.request('GET', '/v1/users/sub1')).status).toBe(404);
    const ev = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'sub1', subscribeToEmails: true }, value: 1 } });
    expect(ev.status).toBe(422);
    expect((await s.request('GET', '/v1/users/sub1')).status).toBe(404);
  });

  it('allows subscribeToEmails true when an email is stored or sent', async () => {
    expect((await s.request('PATCH', '/v1/users/u2', { body: { subscribeToEmails: true } })).status).toBe(200);
    const r = await s.request('PUT', '/v1/users/u3', { body: { email: 'u3@example.com', subscribeToEmails: true } });
    expect(r.status).toBe(201);
    const off = await s.request('PATCH', '/v1/users/u3', { body: { subscribeToEmails: false } });
    expect(off.body.subscribeToEmails).toBe(false);
  });

  it('refuses unknown attribute keys with 422 naming them, comma-separated', async () => {
    const r = await s.request('PUT', '/v1/users/u4', { body: { attributes: { plan: 'pro', shoe: '42', hat: 'no' } } });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/^Invalid attribute keys: shoe, hat\. Please ensure all attribute keys match/);
    expect((await s.request('GET', '/v1/users/u4')).status).toBe(404);
  });

  it('answers every attribute set, also one whose key is __proto__ or constructor', async () => {
    await s.attributes('user', '__proto__', 'constructor');
    // JSON.parse makes __proto__ an own key (an object literal would set the prototype instead).
    const body = JSON.parse('{"attributes":{"__proto__":"p","constructor":"c","plan":"pro"}}') as object;
    const put = await s.request('PUT', '/v1/users/proto-keys', { body });
    expect(put.status, put.text).toBe(201);
    for (const r of [put, await s.request('GET', '/v1/users/proto-keys')]) {
      const attributes = JSON.parse(r.text).attributes as Record<string, string>;
      expect(Object.keys(attributes).sort(), r.text).toEqual(['__proto__', 'constructor', 'plan']);
      expect(Object.entries(attributes).sort()).toEqual([['__proto__', 'p'], ['constructor', 'c'], ['plan', 'pro']]);
    }
  });

  it('refuses time zones that are not IANA zones', async () => {
    for (const tz of ['Mars/Olympus', 'GMT+25', '']) {
      const r = await s.request('PUT', '/v1/users/u5', { body: { tz } });
      expect(r.status, tz).toBe(422);
    }
    expect((await s.request('PUT', '/v1/users/u5', { body: { tz: 'America/Argentina/Buenos_Aires' } })).status).toBe(201);
  });

  it('stores a zone sent in another case in its IANA spelling, and an alias as sent', async () => {
    const cases: [string, string][] = [['europe/paris', 'Europe/Paris'], ['UTC', 'UTC'], ['etc/gmt+5', 'Etc/GMT+5'], ['Asia/Kolkata', 'Asia/Kolkata']];
    for (const [sent, stored] of cases) {
      const r = await s.request('PUT', '/v1/users/zone-case', { body: { tz: sent } });
      expect(r.body.tz, sent).toBe(stored);
      expect((await s.request('GET', '/v1/users/zone-case')).body.tz, sent).toBe(stored);
    }
  });

  it('refuses wrongly typed fields with 400', async () => {
    for (const body of [{ name: 3 }, { deviceTokens: 'abc' }, { attributes: { plan: 1 } }, { subscribeToEmails: 'yes' }]) {
      const r = await s.request('PUT', '/v1/users/u6', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('percent-decodes user ids: spaces, slashes and any unicode', async () => {
    for (const id of ['Zoë Smith', 'a/b', '名前', 'x%y', 'colon:id']) {
      const put = await s.request('PUT', `/v1/users/${enc(id)}`, { body: { name: id } });
      expect(put.status, id).toBe(201);
      const get = await s.request('GET', `/v1/users/${enc(id)}`);
      expect(get.body.id, id).toBe(id);
    }
    expect((await s.request('GET', '/v1/users/%E0%A4%A')).status).toBe(400);
  });

  it('counts a user id\'s characters alike in a body and in a path: an emoji is one', async () => {
    const emoji = '😀'.repeat(255); // 510 UTF-16 units
    const made = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: emoji }, value: 1 } });
    expect(made.status, made.text).toBe(201);
    const get = await s.request('GET', `/v1/users/${enc(emoji)}`);
    expect(get.status, get.text).toBe(200);
    expect(get.body.id).toBe(emoji);
    expect((await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: emoji + '😀' }, value: 1 } })).status).toBe(400);
    expect((await s.request('GET', `/v1/users/${enc(emoji + '😀')}`)).body.error).toBe('Invalid path: a user id must have 1 to 255 characters');
  });
});

describe('preferences', () => {
  it('starts empty, changes only the types passed, and keeps an empty array as disabled', async () => {
    await s.request('PUT', '/v1/users/p1', { body: { name: 'P' } });
    expect((await s.request('GET', '/v1/users/p1/preferences')).body).toEqual({ notifications: {} });
    const first = await s.request('PATCH', '/v1/users/p1/preferences', {
      body: { notifications: { achievement_completed: ['email', 'push'], streak_reminder: [] } },
    });
    expect(first.status).toBe(200);
    const second = await s.request('PATCH', '/v1/users/p1/preferences', { body: { notifications: { recap: ['push'], reactivation: null } } });
    expect(second.body).toEqual({ notifications: { achievement_completed: ['email', 'push'], recap: ['push'], streak_reminder: [] } });
    expect((await s.request('GET', '/v1/users/p1/preferences')).body).toEqual(second.body);
  });

  it('refuses unknown types and channels, and unknown users', async () => {
    expect((await s.request('PATCH', '/v1/users/p1/preferences', { body: { notifications: { weekly: ['email'] } } })).status).toBe(422);
    expect((await s.request('PATCH', '/v1/users/p1/preferences', { body: { notifications: { recap: ['sms'] } } })).status).toBe(422);
    expect((await s.request('PATCH', '/v1/users/nope/preferences', { body: { notifications: {} } })).status).toBe(404);
    expect((await s.request('GET', '/v1/users/nope/preferences')).status).toBe(404);
  });
});

describe('metrics of a user', () => {
  it('lists every active metric with the user total', async () => {
    await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'm1' }, value: 4 } });
    const all = await s.request('GET', '/v1/users/m1/metrics');
    expect(all.status).toBe(200);
    expect(all.body.map((m: any) => [m.key, m.current, m.status])).toEqual([['lessons', 4, 'active'], ['quizzes', 0, 'active']]);
    expect(all.body[0]).toMatchObject({ id: expect.any(String), name: 'Metric lessons', achievements: [] });
    const one = await s.request('GET', '/v1/users/m1/metrics/lessons');
    expect(one.body.current).toBe(4);
    expect((await s.request('GET', '/v1/users/m1/metrics/nope')).status).toBe(404);
    expect((await s.request('GET', '/v1/users/nope/metrics')).status).toBe(404);
  });
});

describe('event summaries', () => {
  const summary = (id: string, q: string) => s.request('GET', `/v1/users/${id}/metrics/lessons/event-summary?${q}`);

  beforeAll(async () => {
    // Events on Mon 2026-03-02 (2), Wed 03-04 (3), Mon 03-09 (-1) and Wed 04-01 (5), noon UTC.
    for (const [day, value] of [['2026-03-02', 2], ['2026-03-04', 3], ['2026-03-09', -1], ['2026-04-01', 5]] as const) {
      await s.setClock(`${day}T12:00:00Z`);
      await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'sum' }, value } });
    }
  });

  it('aggregates daily with totals at the end of each day', async () => {
    const r = await summary('sum', 'aggregation=daily&startDate=2026-03-03&endDate=2026-03-05');
    expect(r.body).toEqual([
      { date: '2026-03-03', total: 2, change: 0 },
      { date: '2026-03-04', total: 5, change: 3 },
      { date: '2026-03-05', total: 5, change: 0 },
    ]);
  });

  it('aggregates weekly, weeks starting on Monday, rows keyed by the first day', async () => {
    const r = await summary('sum', 'aggregation=weekly&startDate=2026-03-04&endDate=2026-03-15');
    expect(r.body).toEqual([
      { date: '2026-03-02', total: 5, change: 5 },
      { date: '2026-03-09', total: 4, change: -1 },
    ]);
  });

  it('aggregates monthly and accepts the spec\'s start_date/end_date', async () => {
    const r = await summary('sum', 'aggregation=monthly&start_date=2026-02-01&end_date=2026-04-30');
    expect(r.body).toEqual([
      { date: '2026-02-01', total: 0, change: 0 },
      { date: '2026-03-01', total: 4, change: 4 },
      { date: '2026-04-01', total: 9, change: 5 },
    ]);
  });

  it('refuses bad queries with 422 (what SDK 1.0.42 types for this call) and a message', async () => {
    const cases: [string, string][] = [
      ['startDate=2026-03-01&endDate=2026-03-02', 'invalid_query'],
      ['aggregation=hourly&startDate=2026-03-01&endDate=2026-03-02', 'invalid_query'],
      ['aggregation=daily&startDate=2026-3-1&endDate=2026-03-02', 'invalid_query'],
      ['aggregation=daily&startDate=2026-02-30&endDate=2026-03-02', 'invalid_query'],
      ['aggregation=daily&endDate=2026-03-02', 'invalid_query'],
      ['aggregation=daily&startDate=2026-03-05&endDate=2026-03-02', 'unprocessable'],
      ['aggregation=daily&startDate=2025-01-01&endDate=2026-03-02', 'unprocessable'],
    ];
    for (const [q, code] of cases) {
      const r = await summary('sum', q);
      expect(r.status, q).toBe(422);
      expect(r.body.code, q).toBe(code);
      expect(typeof r.body.error, q).toBe('string');
    }
    expect((await summary('sum', 'aggregation=daily&startDate=2025-02-01&endDate=2026-03-07')).status).toBe(200);
    expect((await summary('nobody', 'aggregation=daily&startDate=2026-03-01&endDate=2026-03-02')).status).toBe(404);
  });
});

describe('email and subscription', () => {
  it('keeps no email for a user who does not subscribe to emails', async () => {
    const r = await s.request('PUT', '/v1/users/priv', { body: { email: 'p@example.com', subscribeToEmails: false } });
    expect(r.body).toMatchObject({ email: null, subscribeToEmails: false });
    const again = await s.request('PATCH', '/v1/users/priv', { body: { email: 'p@example.com' } });
    expect(again.body.email).toBeNull();
    const on = await s.request('PATCH', '/v1/users/priv', { body: { email: 'p@example.com', subscribeToEmails: true } });
    expect(on.body).toMatchObject({ email: 'p@example.com', subscribeToEmails: true });
    const off = await s.request('PATCH', '/v1/users/priv', { body: { subscribeToEmails: false } });
    expect(off.body.email).toBeNull();
  });
});
