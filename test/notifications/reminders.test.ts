/**
 * `streak_reminder` emails end to end, with the manual clock, against a real SMTP server on loopback:
 * a daily streak extended at 10:00 local is reminded at 20:00 local the next day, not a second
 * before, in Pacific/Kiritimati, Pacific/Pago_Pago and America/New_York; across a DST change; an
 * extension in the reminder's period cancels it; a reminder is sent once with two worker processes; on Redis and on the Cluster.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers, type WorkersHandle } from '../../workers/index.js';
import { adminCreate, putStreakSettings } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';
import { eventually } from '../support/eventually.js';

describe.each(targets())('streak reminders on %s', (target) => {
  let s: TestServer;
  let mail: MailCatcher;
  /** Where the clock is: every case starts a few days later. */
  let day = DateTime.fromISO('2026-06-01T00:00:00Z');

  const local = (tz: string, hhmm: string, plusDays = 0) => DateTime.fromISO(`${day.toISODate()}T${hhmm}`, { zone: tz }).plus({ days: plusDays });
  const at = (t: DateTime) => s.setClock(t.toUTC().toISO()!);
  const nextCase = () => { day = day.plus({ days: 4 }); };
  const user = (id: string, tz: string) => ({ id, email: `${id}@example.test`, name: `User ${id}`, tz });
  const work = async (w: WorkersHandle = s.workers!) => { await w.testing.drainNow(); return w.testing.notifyNow(); };
  const deliveries = async (userId: string) => (await s.request('GET', `/admin/v1/notifications/deliveries?userId=${encodeURIComponent(userId)}&type=streak_reminder`)).body;
  const inbox = (id: string) => mail.to(`${id}@example.test`);

  beforeAll(async () => {
    mail = await startMailCatcher();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: mail.url } });
    await at(day);
    const ids = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    const r = await s.request('PUT', '/admin/v1/notifications/settings', {
      body: { email: { from: 'Acme <hello@acme.test>' }, publicUrl: 'https://acme.test/laurel' },
    });
    expect(r.status).toBe(200);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'keep-going', type: 'streak_reminder', channel: 'email', status: 'active',
      subject: 'Keep your {{ streak.length }}-day streak, {{ user.name }}!',
      text: 'Your streak of {{ streak.length }} ends {{ streak.periodEnd }}.',
    } as never]);
  });
  afterAll(async () => {
    await s?.close();
    await mail?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York']) {
    it(`reminds at 20:00 local the day after an extension, not before (${tz})`, async () => {
      nextCase();
      const id = `zone-${tz.replace('/', '-')}`;
      await at(local(tz, '10:00'));
      await s.event('lessons', user(id, tz), 1);
      await work();
      // Noted in the due index; a delivery only from when it may be due (20:00 in UTC+14).
      expect(await deliveries(id)).toEqual([]);
      await at(local(tz, '19:59:59', 1));
      await work();
      expect(inbox(id)).toHaveLength(0);
      if (tz !== 'Pacific/Kiritimati') {
        const [d] = await deliveries(id);
        expect(d).toMatchObject({ type: 'streak_reminder', channel: 'email', status: 'scheduled' });
        expect(d.scheduledFor).toBe(local(tz, '20:00', 1).toUTC().toISO());
      }
      await at(local(tz, '20:00', 1));
      await work();
      await eventually(() => expect(inbox(id)).toHaveLength(1));
      const [m] = inbox(id);
      expect(m.subject).toBe(`Keep your 1-day streak, User ${id}!`);
      expect(m.text?.trim()).toBe(`Your streak of 1 ends ${local(tz, '00:00', 1).toISODate()}.`);
      await eventually(async () => expect((await deliveries(id))[0]).toMatchObject({
        status: 'sent', attempts: 1, scheduledFor: local(tz, '20:00', 1).toUTC().toISO(),
      }));
    });
  }

  it('keeps 20:00 local across the spring DST change (New York, 2026-03-08)', async () => {
    const tz = 'America/New_York';
    const spring = (iso: string) => DateTime.fromISO(iso, { zone: tz });
    // Later than every other case's dates: the clock only moves forward.
    await s.setClock(spring('2027-03-13T10:00').toUTC().toISO()!);
    await s.event('lessons', user('dst', tz), 1);
    await work();
    await s.setClock('2027-03-14T23:59:59Z');
    await work();
    // New York springs forward on 2027-03-14: 20:00 EDT is 00:00 UTC on the 15th.
    expect((await deliveries('dst'))[0].scheduledFor).toBe('2027-03-15T00:00:00.000Z');
    expect(inbox('dst')).toHaveLength(0);
    await s.setClock('2027-03-15T00:00:00Z');
    await work();
    await eventually(() => expect(inbox('dst')).toHaveLength(1));
    day = DateTime.fromISO('2027-04-01T00:00:00Z');
  });

  it('cancels a reminder when the streak is extended in its period; sends one that is not', async () => {
    nextCase();
    const tz = 'America/New_York';
    await at(local(tz, '10:00'));
    await s.event('lessons', user('keeper', tz), 1);
    await s.event('lessons', user('loser', tz), 1);
    await work();
    // The next day's reminders are deliveries from 02:00 local (20:00 in UTC+14) on.
    await at(local(tz, '08:00', 1));
    await work();
    expect((await deliveries('keeper')).map((x: { status: string }) => x.status)).toEqual(['scheduled']);
    // keeper extends the next morning: that day's reminder is cancelled (the next one noted in the index).
    await at(local(tz, '09:00', 1));
    await s.event('lessons', 'keeper', 1);
    await work();
    await at(local(tz, '20:00', 1));
    await work();
    await eventually(async () => {
      const list = await deliveries('keeper');
      expect(list.map((x: { status: string; reason?: string; scheduledFor: string }) => [x.scheduledFor, x.status, x.reason ?? null])).toEqual([
        [local(tz, '20:00', 1).toUTC().toISO(), 'cancelled', 'extended'],
      ]);
    });
    expect(inbox('keeper')).toHaveLength(0);
    await eventually(() => expect(inbox('loser')).toHaveLength(1));
    // One reminder per extension: nothing more is scheduled for loser; keeper's next one is.
    await at(local(tz, '19:00', 2));
    await work();
    expect(await deliveries('loser')).toHaveLength(1);
    expect((await deliveries('keeper')).map((x: { status: string; scheduledFor: string }) => [x.scheduledFor, x.status])).toEqual([
      [local(tz, '20:00', 2).toUTC().toISO(), 'scheduled'],
      [local(tz, '20:00', 1).toUTC().toISO(), 'cancelled'],
    ]);
  });

  it('sends one reminder with two worker processes at work', async () => {
    nextCase();
    const tz = 'Europe/Paris';
    await at(local(tz, '10:00'));
    await s.event('lessons', user('twice', tz), 1);
    await work();
    const other = await startWorkers(s.settings, createLogger('silent'));
    try {
      await at(local(tz, '20:00', 1));
      await Promise.all([work(), work(other)]);
      await eventually(() => expect(inbox('twice')).toHaveLength(1));
      await new Promise((r) => setTimeout(r, 300));
      expect(inbox('twice')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
