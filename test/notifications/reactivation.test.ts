/**
 * `reactivation` emails end to end, with the manual clock, against a real SMTP server on loopback:
 * 3, 5 (and so on) days after a user's last event, at 17:00 local; a user who comes back ends the
 * absence, and its pending message is not sent; at 17:00 in Pacific/Kiritimati, Pacific/Pago_Pago
 * and America/New_York alike, not a second before, and across a DST change.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreate } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';
import { eventually } from '../support/eventually.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { reactivationScore } from '../../src/domain/notifications/due-members.js';

describe.each(targets())('reactivation emails on %s', (target) => {
  let s: TestServer;
  let mail: MailCatcher;
  const tz = 'America/New_York';
  const local = (day: number, hhmm: string) => DateTime.fromISO(`2026-09-${String(day).padStart(2, '0')}T${hhmm}`, { zone: tz });
  const at = (t: DateTime) => s.setClock(t.toUTC().toISO()!);
  const user = (id: string) => ({ id, email: `${id}@example.test`, name: `User ${id}`, tz });
  const work = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.notifyNow(); };
  const inbox = (id: string) => mail.to(`${id}@example.test`);
  const deliveries = async (userId: string) => (await s.request('GET', `/admin/v1/notifications/deliveries?userId=${userId}&type=reactivation`)).body as
    { status: string; reason?: string; scheduledFor: string }[];

  beforeAll(async () => {
    mail = await startMailCatcher();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: mail.url } });
    await at(local(1, '08:00'));
    await s.metrics('lessons');
    const r = await s.request('PUT', '/admin/v1/notifications/settings', { body: { email: { from: 'Acme <hello@acme.test>' }, publicUrl: 'https://acme.test' } });
    expect(r.status).toBe(200);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'miss-you', type: 'reactivation', channel: 'email', status: 'active',
      subject: 'We miss you ({{ reactivation.messageNumber }})', text: 'It has been {{ reactivation.daysSinceLastActive }} days.',
    } as never]);
  });
  afterAll(async () => {
    await s?.close();
    await mail?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('writes 3 and then 5 days after the last event, at 17:00 local, and not to a user who came back', async () => {
    await at(local(1, '10:00'));
    await s.event('lessons', user('gone'), 1);
    await s.event('lessons', user('back'), 1);
    await s.event('lessons', user('returner'), 1);
    await work();
    // Noted in the due index: a delivery only from when it may be due (17:00 in UTC+14).
    expect(await deliveries('gone')).toEqual([]);
    // back returns on the 3rd: the absence of the 1st ends, one from the 3rd begins.
    await at(local(3, '09:00'));
    await s.event('lessons', 'back', 1);
    await work();
    await at(local(4, '16:59:59'));
    await work();
    expect((await deliveries('gone')).map((d) => [d.scheduledFor, d.status])).toEqual([[local(4, '17:00').toUTC().toISO(), 'scheduled']]);
    expect(await deliveries('back')).toEqual([]);
    expect(inbox('gone')).toHaveLength(0);
    await at(local(4, '17:00'));
    await work();
    // The workers' own passes run beside these calls: one of them may be sending right now.
    await eventually(() => expect(inbox('gone').map((m) => [m.subject, m.text?.trim()])).toEqual([['We miss you (1)', 'It has been 3 days.']]));
    await eventually(() => expect(inbox('returner').map((m) => m.subject)).toEqual(['We miss you (1)']));
    expect(inbox('back')).toHaveLength(0);
    // The second message of gone's absence: 5 days after the 1st.
    expect((await deliveries('gone'))[0]).toMatchObject({ status: 'scheduled', scheduledFor: local(6, '17:00').toUTC().toISO() });
    // back comes back again on the 5th, after nothing was sent: that absence ends too; returner
    // comes back after its first message: its second is not sent.
    await at(local(5, '12:00'));
    await s.event('lessons', 'back', 1);
    await s.event('lessons', 'returner', 1);
    await work();
    await at(local(6, '17:00'));
    await work();
    await eventually(() => expect(inbox('gone').map((m) => m.subject)).toEqual(['We miss you (1)', 'We miss you (2)']));
    expect(inbox('gone')[1].text?.trim()).toBe('It has been 5 days.');
    expect(inbox('back')).toHaveLength(0);
    expect(inbox('returner')).toHaveLength(1);
    await eventually(async () => expect((await deliveries('returner')).map((d) => [d.status, d.reason ?? null])).toEqual([['cancelled', 'active'], ['sent', null]]));
    // back's absence from the 5th: its first message on the 8th.
    await at(local(8, '16:00'));
    await work();
    expect((await deliveries('back')).map((d) => [d.scheduledFor, d.status])).toEqual([[local(8, '17:00').toUTC().toISO(), 'scheduled']]);
  });

  for (const [n, zone] of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York'].entries()) {
    it(`writes 3 days after the last event at 17:00 local, not before (${zone})`, async () => {
      // Later days than the case above (the clock only moves forward), a week per zone.
      const day1 = DateTime.fromISO('2026-10-01T10:00', { zone }).plus({ weeks: n });
      const id = `away-${zone.replace('/', '-')}`;
      await at(day1);
      await s.event('lessons', { ...user(id), tz: zone }, 1);
      await work();
      await at(day1.plus({ days: 3 }).set({ hour: 16, minute: 59, second: 59 }));
      await work();
      expect(inbox(id)).toHaveLength(0);
      await at(day1.plus({ days: 3 }).set({ hour: 17, minute: 0, second: 0 }));
      await work();
      // The workers' own passes run beside these calls: one of them may be sending it right now.
      await eventually(() => expect(inbox(id).map((m) => m.subject)).toEqual(['We miss you (1)']));
      await eventually(async () => expect((await deliveries(id)).at(-1)).toMatchObject({
        status: 'sent', scheduledFor: day1.plus({ days: 3 }).set({ hour: 17, minute: 0 }).toUTC().toISO(),
      }));
    });
  }

  it('notes an absence again when writing the due index failed (the drainer forgets what it noted)', async () => {
    await s.setClock('2026-10-20T14:00:00Z');
    const { redis, keys } = s.api.services;
    const index = keys.partitionNotificationsDue(keys.partitionOf(DEFAULT_TENANT, 'unlucky'));
    const member = JSON.stringify(['r', DEFAULT_TENANT, 'unlucky']);
    // The index's key of another type: the pass's ZADD fails, nothing of it is archived.
    const kept = await redis.dump(index);
    await redis.del(index);
    await redis.set(index, 'not a sorted set');
    await s.event('lessons', user('unlucky'), 1);
    await expect(s.workers!.testing.drainNow()).rejects.toThrow(/WRONGTYPE/);
    await redis.del(index);
    if (kept !== null) await redis.restore(index, 0, kept);
    // The pass made again writes the user's absence (its memory of the event dropped with the failure).
    await eventually(async () => {
      await s.workers!.testing.drainNow();
      expect(await redis.zscore(index, member)).toBe(String(reactivationScore('2026-10-20')));
    });
  });

  it('keeps 17:00 local across the autumn DST change (New York, 2026-11-01)', async () => {
    // Last active on Friday 2026-10-30 (EDT, UTC-4); three days later is Monday 2026-11-02 (EST, UTC-5).
    await s.setClock('2026-10-30T14:00:00Z');
    await s.event('lessons', { ...user('autumn'), tz: 'America/New_York' }, 1);
    await work();
    await s.setClock('2026-11-02T21:59:59Z');
    await work();
    expect(inbox('autumn')).toHaveLength(0);
    await s.setClock('2026-11-02T22:00:00Z');
    await work();
    await eventually(() => expect(inbox('autumn').map((m) => m.subject)).toEqual(['We miss you (1)']));
  });
});
