/**
 * `achievement_completed` emails end to end, with the manual clock, against a real SMTP server on
 * loopback (test/support/smtp.ts) and mailparser: the local hour in three zones, after 21:00, one
 * message a day, every "Who" rule suppressing with its reason, worker restarts and two worker
 * processes sending once, a worker dead mid-send never sending again, SMTP down then up; on Redis and
 * on the Cluster.
 */
import { DateTime } from 'luxon';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { verifyToken } from '../../src/domain/notifications/link-tokens.js';
import { startWorkers, type WorkersHandle } from '../../workers/index.js';
import { adminCreate, createAchievements } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';
import { eventually } from '../support/eventually.js';
import { claimDue } from '../../src/postgres/notifications/deliveries.js';
import { LEASE_MS } from '../../src/engine/notifications/send.js';

describe.each(targets())('achievement emails on %s', (target) => {
  let s: TestServer;
  let mail: MailCatcher;
  let ids: Record<string, string>;
  let template: string;
  /** Where the clock is: every step moves it forward. */
  let day = DateTime.fromISO('2026-06-01T00:00:00Z');

  const local = (tz: string, hhmm: string) => DateTime.fromISO(`${day.toISODate()}T${hhmm}`, { zone: tz });
  const at = (t: DateTime) => s.setClock(t.toUTC().toISO()!);
  /** A fresh day for the next case (all zones' same date is still ahead of the clock). */
  const nextCase = () => { day = day.plus({ days: 3 }); };
  const user = (id: string, tz: string | null, extra: Record<string, unknown> = {}) => ({ id, email: `${id}@example.test`, name: `User ${id}`, tz, ...extra });
  /** What the workers do each second, now: the drain schedules, the notifier sends. */
  const work = async (w: WorkersHandle = s.workers!) => { await w.testing.drainNow(); return w.testing.notifyNow(); };
  const deliveries = async (userId: string) => (await s.request('GET', `/admin/v1/notifications/deliveries?userId=${encodeURIComponent(userId)}`)).body;
  const inbox = (id: string): ParsedMail[] => mail.to(`${id}@example.test`);

  beforeAll(async () => {
    mail = await startMailCatcher();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: mail.url } });
    await at(day);
    ids = await s.metrics('lessons');
    ids = { ...ids, ...await createAchievements(s, [
      { name: 'First lesson', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 },
      { name: 'Five lessons', key: 'five', trigger: 'metric', metricId: ids.lessons, metricValue: 5 },
      { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
    ]) };
    const r = await s.request('PUT', '/admin/v1/notifications/settings', {
      body: { email: { from: 'Acme <hello@acme.test>', replyTo: 'help@acme.test' }, publicUrl: 'https://acme.test/laurel' },
    });
    expect(r.status).toBe(200);
    template = (await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'done', type: 'achievement_completed', channel: 'email', status: 'active',
      subject: 'Well done, {{ user.name }}!',
      html: '<p>{% for a in achievements %}<b>{{ a.name }}</b>{% endfor %}</p><a href="{{ unsubscribeUrl }}">unsubscribe</a>',
      text: 'You did it: {% for a in achievements %}{{ a.name }}; {% endfor %}{{ metrics.lessons.total }} lessons.',
    } as never])).done;
  });
  afterAll(async () => {
    await s?.close();
    await mail?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York']) {
    it(`sends a completion at 10:00 at 17:00 local, not before (${tz})`, async () => {
      nextCase();
      const id = `zone-${tz.replace('/', '-')}`;
      await at(local(tz, '10:00'));
      await s.event('lessons', user(id, tz), 1);
      await work();
      const [d] = await deliveries(id);
      expect(d).toMatchObject({ type: 'achievement_completed', channel: 'email', userId: id, status: 'scheduled', sentAt: null, attempts: 0 });
      expect(d.scheduledFor).toBe(local(tz, '17:00').toUTC().toISO());
      await at(local(tz, '16:59:59'));
      await work();
      expect(inbox(id)).toHaveLength(0);
      await at(local(tz, '17:00'));
      await work();
      await eventually(() => expect(inbox(id)).toHaveLength(1));
      const [m] = inbox(id);
      expect(m.subject).toBe(`Well done, User ${id}!`);
      expect(m.from?.text).toBe('"Acme" <hello@acme.test>');
      expect(m.replyTo?.text).toBe('help@acme.test');
      expect(m.text?.trim()).toBe('You did it: First lesson; 1 lessons.');
      expect(m.html).toContain('<b>First lesson</b>');
      const header = (name: string) => m.headerLines.find((h) => h.key === name)?.line.slice(name.length + 1).trim();
      const unsubscribe = String(header('list-unsubscribe'));
      expect(unsubscribe).toMatch(/^<https:\/\/acme\.test\/laurel\/unsubscribe\/[^>]+>$/);
      expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(m.messageId).toBe(`<${d.id}@acme.test>`);
      const token = unsubscribe.slice(unsubscribe.lastIndexOf('/') + 1, -1);
      const secret = await s.api.services.redis.get(s.api.services.keys.signingSecret);
      expect(verifyToken(secret!, token)).toEqual({ tenant: '_', userId: id });
      await eventually(async () => expect((await deliveries(id))[0]).toMatchObject({ status: 'sent', sentAt: local(tz, '17:00').toUTC().toISO(), attempts: 1 }));
    });
  }

  it('sends a completion after 21:00 at 17:00 the next day; a completion between 17:00 and 21:00 at once', async () => {
    nextCase();
    const tz = 'America/New_York';
    await at(local(tz, '21:30'));
    await s.event('lessons', user('late', tz), 1);
    await work();
    expect((await deliveries('late'))[0].scheduledFor).toBe(local(tz, '17:00').plus({ days: 1 }).toUTC().toISO());
    await at(local(tz, '23:59'));
    await work();
    expect(inbox('late')).toHaveLength(0);
    await at(local(tz, '18:30').plus({ days: 1 }));
    await s.event('lessons', user('evening', tz), 1);
    await work();
    await eventually(() => expect(inbox('late')).toHaveLength(1));
    await eventually(() => expect(inbox('evening')).toHaveLength(1));
    expect((await deliveries('evening'))[0].scheduledFor).toBe(local(tz, '18:30').plus({ days: 1 }).toUTC().toISO());
  });

  it('lists a day\'s completions in one message (events and API completions); a backfill is silent', async () => {
    nextCase();
    const tz = 'Europe/Paris';
    await at(local(tz, '09:00'));
    await s.event('lessons', user('busy', tz), 1);
    await work();
    await at(local(tz, '12:00'));
    await s.event('lessons', 'busy', 4);
    const c = await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'busy' } } });
    expect(c.status).toBe(201);
    // Again: nothing more completes.
    await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'busy' } } });
    await work();
    await at(local(tz, '17:00'));
    await work();
    await eventually(() => expect(inbox('busy')).toHaveLength(1));
    expect(inbox('busy')[0].text?.trim()).toBe('You did it: First lesson; Five lessons; Onboarded; 5 lessons.');
    expect(await deliveries('busy')).toHaveLength(1);
    // A backfill completes silently.
    await at(local(tz, '18:00'));
    await s.event('lessons', 'busy', 1);
    await createAchievements(s, [{ name: 'Six', key: 'six', trigger: 'metric', metricId: ids.lessons, metricValue: 6 }]);
    await s.workers!.testing.achievementsIdle();
    expect((await s.request('GET', '/api/users/busy/achievements')).body.map((a: { key: string }) => a.key)).toContain('six');
    await work();
    expect(await deliveries('busy')).toHaveLength(1);
    // A completion after the day's message has gone: the next day's.
    await createAchievements(s, [{ name: 'Seven', key: 'seven', trigger: 'metric', metricId: ids.lessons, metricValue: 7 }]);
    await s.workers!.testing.achievementsIdle();
    await s.event('lessons', 'busy', 1);
    await work();
    const [next, first] = await deliveries('busy');
    expect(first.status).toBe('sent');
    expect(next).toMatchObject({ status: 'scheduled', scheduledFor: local(tz, '17:00').plus({ days: 1 }).toUTC().toISO() });
    await at(local(tz, '17:00').plus({ days: 1 }));
    await work();
    await eventually(() => expect(inbox('busy')).toHaveLength(2));
    expect(inbox('busy')[1].text?.trim()).toBe('You did it: Seven; 7 lessons.');
  });

  it('suppresses, with the reason, for each rule of "Who", and sends none of them', async () => {
    nextCase();
    const tz = 'UTC';
    await at(local(tz, '08:00'));
    await s.request('PUT', '/admin/v1/notifications/settings', {
      body: { controlRatio: 1, email: { from: 'Acme <hello@acme.test>', replyTo: 'help@acme.test' }, publicUrl: 'https://acme.test/laurel' },
    });
    await at(local(tz, '08:01'));
    await s.event('lessons', user('w-control', tz), 1);
    await at(local(tz, '08:02'));
    await s.request('PUT', '/admin/v1/notifications/settings', {
      body: { controlRatio: 0, email: { from: 'Acme <hello@acme.test>', replyTo: 'help@acme.test' }, publicUrl: 'https://acme.test/laurel' },
    });
    await at(local(tz, '08:03'));
    await s.event('lessons', { id: 'w-unsub', tz, subscribeToEmails: false }, 1);
    await s.event('lessons', { id: 'w-noemail', tz }, 1);
    await s.event('lessons', user('w-prefs', tz), 1);
    expect((await s.request('PATCH', '/api/users/w-prefs/preferences', { body: { notifications: { achievement_completed: ['push'] } } })).status).toBe(200);
    // Unsubscribed after the completion: checked again at send time.
    await s.event('lessons', user('w-later', tz), 1);
    await s.request('PATCH', '/api/users/w-later', { body: { subscribeToEmails: false } });
    await work();
    await at(local(tz, '17:00'));
    await work();
    const expected: [string, string][] = [
      ['w-control', 'control'], ['w-unsub', 'unsubscribed'], ['w-noemail', 'no_email'], ['w-prefs', 'preferences'], ['w-later', 'unsubscribed'],
    ];
    for (const [id, reason] of expected) {
      await eventually(async () => expect(await deliveries(id), id).toEqual([expect.objectContaining({ status: 'suppressed', reason, sentAt: null })]));
      expect(inbox(id)).toHaveLength(0);
    }
    expect((await s.request('GET', '/admin/v1/notifications/deliveries?status=suppressed&limit=100')).body.length).toBeGreaterThanOrEqual(5);
  });

  it('does not send twice across a worker restart, nor with two worker processes', async () => {
    nextCase();
    const tz = 'Asia/Tokyo';
    await at(local(tz, '10:00'));
    await s.event('lessons', user('twice', tz), 1);
    await s.event('lessons', user('racing', tz), 1);
    await work();
    // A restart between the scheduling and the send: the delivery waits in Postgres.
    const log = createLogger('silent');
    await s.workers!.close();
    const restarted = await startWorkers(s.settings, log, s.api.services);
    s.workers = restarted;
    // A second worker process of its own (its own Redis connections and Postgres pool).
    const other = await startWorkers(s.settings, log);
    try {
      await at(local(tz, '17:00'));
      await Promise.all([restarted.testing.notifyNow(), other.testing.notifyNow(), restarted.testing.notifyNow(), other.testing.notifyNow()]);
      await eventually(() => expect(inbox('twice')).toHaveLength(1));
      await eventually(() => expect(inbox('racing')).toHaveLength(1));
      await new Promise((r) => setTimeout(r, 1500));
      await Promise.all([restarted.testing.notifyNow(), other.testing.notifyNow()]);
      expect(inbox('twice')).toHaveLength(1);
      expect(inbox('racing')).toHaveLength(1);
      expect((await deliveries('racing'))[0]).toMatchObject({ status: 'sent', attempts: 1 });
    } finally {
      await other.close();
    }
  });

  it('never sends again what a worker claimed and died with: its lease runs out, it is failed, reason interrupted', async () => {
    nextCase();
    const tz = 'Asia/Tokyo';
    await at(local(tz, '10:00'));
    await s.event('lessons', user('killed', tz), 1);
    await work();
    // What a worker process killed mid-send leaves: the delivery claimed (`sending`), never settled.
    // Claimed as of 17:00 while the service's clock stays before it, so the workers' own passes
    // (running beside the test) cannot take it first.
    const pool = await s.api.services.postgres();
    const claimed = await claimDue(pool, s.prefix, local(tz, '17:00').toMillis(), 10, LEASE_MS);
    expect(claimed.map((d) => d.userId)).toEqual(['killed']);
    await at(local(tz, '17:00'));
    await work();
    expect((await deliveries('killed'))[0]).toMatchObject({ status: 'sending' });
    // Its lease (wall time) runs out: the next pass settles it, and sends nothing.
    await pool.query(`UPDATE laurel_deliveries SET claimed_until = now() - interval '1 second' WHERE prefix = $1 AND id = $2`, [s.prefix, claimed[0].id]);
    await work();
    await eventually(async () => expect((await deliveries('killed'))[0]).toMatchObject({ status: 'failed', reason: 'interrupted', attempts: 1 }));
    await work();
    expect(inbox('killed')).toHaveLength(0);
  });

  it('tries again with a backoff while SMTP is down, then sends once', async () => {
    nextCase();
    const tz = 'Europe/London';
    await at(local(tz, '10:00'));
    await s.event('lessons', user('down', tz), 1);
    await work();
    await mail.stop();
    try {
      await at(local(tz, '17:00'));
      await work();
      await eventually(async () => expect((await deliveries('down'))[0]).toMatchObject({ status: 'scheduled', attempts: 1, error: expect.stringMatching(/ECONNREFUSED|connect/) }));
    } finally {
      await mail.start();
    }
    // Not before the backoff (a minute on the service's clock).
    await at(local(tz, '17:00:30'));
    await work();
    expect(inbox('down')).toHaveLength(0);
    await at(local(tz, '17:01'));
    await work();
    await eventually(() => expect(inbox('down')).toHaveLength(1));
    await eventually(async () => expect((await deliveries('down'))[0]).toMatchObject({ status: 'sent', attempts: 2, sentAt: local(tz, '17:01').toUTC().toISO() }));
    await at(local(tz, '17:10'));
    await work();
    expect(inbox('down')).toHaveLength(1);
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(Number(/laurel_notifications_total\{outcome="retried"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/laurel_notifications_total\{outcome="sent"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('suppresses with no_template when no active template matches, and scopes the list to the tenant', async () => {
    nextCase();
    const tz = 'UTC';
    await at(local(tz, '10:00'));
    await s.event('lessons', user('no-tpl', tz), 1);
    await work();
    expect((await s.request('PATCH', '/admin/v1/notifications/templates', { body: [{ id: template, status: 'inactive' }] })).body.issues).toEqual([]);
    await at(local(tz, '17:00'));
    await work();
    await eventually(async () => expect(await deliveries('no-tpl')).toEqual([expect.objectContaining({ status: 'suppressed', reason: 'no_template' })]));
    expect(inbox('no-tpl')).toHaveLength(0);
    expect((await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme-mail', name: 'Acme' }] })).status).toBe(201);
    expect((await s.request('GET', '/admin/v1/notifications/deliveries', { tenant: 'acme-mail' })).body).toEqual([]);
  });
});

describe('achievement emails without SMTP', () => {
  let s: TestServer;
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('records the delivery as suppressed, reason no_transport', async () => {
    s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: '' } });
    await s.setClock('2026-06-01T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    await createAchievements(s, [{ name: 'First', key: 'first', trigger: 'metric', metricId: lessons, metricValue: 1 }]);
    await adminCreate(s, '/admin/v1/notifications/templates', [{ key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Hi', text: 'x' } as never]);
    await s.request('PUT', '/admin/v1/notifications/settings', { body: { defaultTimeZone: 'UTC', publicUrl: 'https://acme.test' } });
    await s.event('lessons', { id: 'ada', email: 'ada@example.test' }, 1);
    await s.workers!.testing.drainNow();
    await s.setClock('2026-06-01T17:00:00Z');
    await s.workers!.testing.notifyNow();
    await new Promise((r) => setTimeout(r, 200));
    const r = await s.request('GET', '/admin/v1/notifications/deliveries');
    expect(r.body).toEqual([expect.objectContaining({ userId: 'ada', status: 'suppressed', reason: 'no_transport', scheduledFor: '2026-06-01T17:00:00.000Z' })]);
  });
});
