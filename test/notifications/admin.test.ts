/**
 * The notifications Admin API and the control group: settings (defaults, validation, the control
 * ratio assigning new users only), templates (the batch pattern, Liquid checked when written:
 * a text that does not parse or names an unknown variable is an issue naming its field), the
 * deliveries list's query checks and tenant scope; on Redis and on the Cluster.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { controlPoint } from '../../src/domain/notifications/rules.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('notifications admin on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  const settings = (body: unknown) => s.request('PUT', '/admin/v1/notifications/settings', { body });
  const templates = (body: unknown) => s.request('POST', '/admin/v1/notifications/templates', { body });
  const email = { type: 'achievement_completed', channel: 'email', subject: 'Well done {{ user.name }}', text: '{{ achievement.name }}' };

  beforeAll(async () => {
    await s.setClock('2026-03-10T12:00:00Z');
    await s.metrics('lessons');
  });

  it('answers the contract defaults until set, and refuses bad settings with a 4xx naming the field', async () => {
    const r = await s.request('GET', '/admin/v1/notifications/settings');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      controlRatio: 0, defaultTimeZone: 'America/New_York', email: { from: null, replyTo: null }, recap: { aggregation: 'weekly' }, publicUrl: null,
    });
    const bad: [unknown, number, RegExp][] = [
      [{ controlRatio: 1.5 }, 400, /controlRatio must be <= 1/],
      [{ controlRatio: -0.1 }, 400, /controlRatio must be >= 0/],
      [{ defaultTimeZone: 'Mars/Olympus' }, 422, /Mars\/Olympus/],
      [{ email: { from: 'not an address' } }, 400, /email.from/],
      [{ recap: { aggregation: 'daily' } }, 400, /recap.aggregation must be one of/],
      [{ publicUrl: 'ftp://x' }, 422, /publicUrl/],
      [{ colour: 'red' }, 400, /unknown field "colour"/],
      [[], 400, /body must be object/],
    ];
    for (const [body, status, message] of bad) {
      const x = await settings(body);
      expect(x.status, JSON.stringify(body)).toBe(status);
      expect(x.body.error).toMatch(message);
    }
    const ok = await settings({ defaultTimeZone: 'europe/paris', email: { from: 'Acme <hi@acme.test>', replyTo: 'help@acme.test' }, publicUrl: 'https://acme.test/' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ defaultTimeZone: 'Europe/Paris', email: { from: 'Acme <hi@acme.test>', replyTo: 'help@acme.test' }, publicUrl: 'https://acme.test' });
    expect((await s.request('GET', '/admin/v1/notifications/settings')).body).toMatchObject({ defaultTimeZone: 'Europe/Paris' });
  });

  it('puts users in the control group by the ratio in force when they were created, once', async () => {
    // Users on either side of 0.5, by the stable hash.
    const ids = Array.from({ length: 40 }, (_, i) => `ctl-${i}`);
    const low = ids.filter((id) => controlPoint('_', id) < 0.5);
    const high = ids.filter((id) => controlPoint('_', id) >= 0.5);
    expect(low.length).toBeGreaterThan(0);
    expect(high.length).toBeGreaterThan(0);
    // Created before any ratio: never in the control group.
    await s.event('lessons', low[0], 1);
    await s.setClock('2026-03-10T12:01:00Z');
    expect((await settings({ controlRatio: 0.5 })).body.controlRatio).toBe(0.5);
    await s.setClock('2026-03-10T12:02:00Z');
    for (const id of [low[1], high[0]]) expect((await s.request('POST', '/api/users', { body: { id } })).status).toBe(201);
    await s.event('lessons', low[2], 1);
    const control = async (id: string) => (await s.request('GET', `/api/users/${id}`)).body.control;
    expect(await control(low[0])).toBe(false);
    expect(await control(low[1])).toBe(true);
    expect(await control(low[2])).toBe(true);
    expect(await control(high[0])).toBe(false);
    // The answer of the creating request says so too.
    expect((await s.request('PUT', `/api/users/${low[3]}`, { body: { name: 'L' } })).body.control).toBe(true);
    // Another ratio later moves nobody who exists, and applies to users created after it.
    await s.setClock('2026-03-10T12:03:00Z');
    await settings({ controlRatio: 0 });
    expect(await control(low[1])).toBe(true);
    await s.event('lessons', low[4], 1);
    expect(await control(low[4])).toBe(false);
  });

  it('creates, lists, reads, updates and deletes templates in the admin batch style', async () => {
    const r = await templates([{ key: 'done', name: 'Done', ...email, html: '<b>{{ achievements | size }}</b>' }, { key: 'push-done', type: 'streak_reminder', channel: 'push', title: 'Hi', body: '{{ streak.length }}' }]);
    expect(r.status).toBe(201);
    expect(r.body.issues).toEqual([]);
    expect(r.body.created[0]).toMatchObject({ key: 'done', name: 'Done', status: 'inactive', channel: 'email', subject: email.subject, userAttributes: [] });
    expect(r.body.created[1]).toMatchObject({ key: 'push-done', name: 'push-done', channel: 'push', title: 'Hi', body: '{{ streak.length }}' });
    const id = r.body.created[0].id;
    expect((await s.request('GET', `/admin/v1/notifications/templates/${id}`)).body.key).toBe('done');
    expect((await s.request('GET', '/admin/v1/notifications/templates')).body.map((t: { key: string }) => t.key)).toEqual(['done', 'push-done']);
    const u = await s.request('PATCH', '/admin/v1/notifications/templates', { body: [{ id, status: 'active' }, { id, text: '{{ nope }}' }] });
    expect(u.body.updated).toHaveLength(1);
    expect(u.body.updated[0].status).toBe('active');
    expect(u.body.issues).toEqual([{ id, severity: 'error', message: expect.stringMatching(/^text names "nope", not a variable of achievement_completed/) }]);
    const d = await s.request('DELETE', `/admin/v1/notifications/templates?ids=${r.body.created[1].id}`);
    expect(d.body.deleted).toHaveLength(1);
    const again = await templates([{ key: 'done', ...email }]);
    expect(again.body.issues[0].message).toBe('A template with key "done" already exists');
  });

  it('refuses bad templates as issues naming the field, never a 5xx', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ subject: '{{ user.name' }, /^subject is not a valid Liquid template/],
      [{ html: '{% if %}x{% endif %}' }, /^html is not a valid Liquid template/],
      [{ text: '{{ user.name | nosuchfilter }}' }, /^text is not a valid Liquid template: undefined filter: nosuchfilter/],
      [{ text: '{% include "secrets" %}' }, /^text is not a valid Liquid template/],
      [{ text: '{{ streak.length }}' }, /^text names "streak", not a variable of achievement_completed templates/],
      [{ subject: null }, /^subject is required for an email template/],
      [{ text: null }, /needs html or text/],
      [{ title: 'x' }, /^title applies to push templates only/],
      [{ userAttributes: [{ attributeId: 'nope', attributeValue: 'x' }] }, /^userAttributes: "nope" is not the id of a user attribute/],
      [{ type: 'birthday' }, /type must be one of/],
      [{ colour: 'red' }, /^unknown field "colour"/],
    ];
    for (const [change, message] of cases) {
      const r = await templates([{ key: 'bad', ...email, ...change }]);
      expect(r.status, JSON.stringify(change)).toBe(200);
      expect(r.body).toEqual({ created: [], issues: [{ index: 0, severity: 'error', message: expect.stringMatching(message) }] });
    }
    expect((await templates({ key: 'x' })).status).toBe(400);
  });

  it('lists deliveries per tenant, checking the filters', async () => {
    const r = await s.request('GET', '/admin/v1/notifications/deliveries?userId=nobody&type=achievement_completed&channel=email&status=sent');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    const bad: [string, RegExp][] = [['type=birthday', /type must be one of/], ['channel=sms', /channel must be one of/], ['status=lost', /status must be one of/], ['limit=0', /limit/]];
    for (const [q, message] of bad) {
      const x = await s.request('GET', `/admin/v1/notifications/deliveries?${q}`);
      expect(x.status, q).toBe(400);
      expect(x.body.error).toMatch(message);
    }
    expect((await s.request('GET', '/admin/v1/notifications/deliveries', { tenant: 'no-such-tenant' })).status).toBe(404);
  });
});
