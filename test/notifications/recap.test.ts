/**
 * `recap` emails end to end, with the manual clock, against a real SMTP server on loopback: weekly,
 * at 09:00 local on the Monday after the week, to the users active in it, with the week's figures
 * (metric totals and changes, points, the achievements completed in it, the streak); at 09:00 in
 * Pacific/Kiritimati, Pacific/Pago_Pago and America/New_York alike, not a second before, and across a
 * DST change.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreate } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';
import { eventually } from '../support/eventually.js';

describe.each(targets())('recap emails on %s', (target) => {
  let s: TestServer;
  let mail: MailCatcher;
  const user = (id: string) => ({ id, email: `${id}@example.test`, name: `User ${id}`, tz: 'UTC' });
  const work = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.notifyNow(); };
  const inbox = (id: string) => mail.to(`${id}@example.test`);

  beforeAll(async () => {
    mail = await startMailCatcher();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: mail.url } });
    await s.setClock('2026-08-31T08:00:00Z');
    const ids = await s.metrics('lessons');
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'Three lessons', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 } as never]);
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const r = await s.request('PUT', '/admin/v1/notifications/settings', { body: { email: { from: 'Acme <hello@acme.test>' }, publicUrl: 'https://acme.test' } });
    expect(r.status).toBe(200);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'weekly', type: 'recap', channel: 'email', status: 'active',
      subject: 'Your week from {{ recap.periodStart }} to {{ recap.periodEnd }}',
      text: '{{ recap.metrics.lessons.change }} lessons ({{ recap.metrics.lessons.total }} in all), {{ recap.points.xp.change }} XP ' +
        '({{ recap.points.xp.total }}); {% for a in achievements %}{{ a.name }};{% endfor %}',
    } as never]);
  });
  afterAll(async () => {
    await s?.close();
    await mail?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('sends each active user the week\'s figures on the Monday after, at 09:00 local, and nothing to a user idle that week', async () => {
    // The week before (from Monday 2026-08-31): rex 1 lesson, idle 1 lesson.
    await s.setClock('2026-09-01T10:00:00Z');
    await s.event('lessons', user('rex'), 1);
    await s.event('lessons', user('idle'), 1);
    await work();
    // The week from Monday 2026-09-07: rex 2 lessons on Tuesday, 3 on Thursday (10 XP a lesson).
    await s.setClock('2026-09-07T09:00:00Z');
    await work();
    await eventually(() => expect(inbox('rex').map((m) => m.subject)).toEqual(['Your week from 2026-08-31 to 2026-09-06']));
    expect(inbox('rex')[0].text?.trim()).toBe('1 lessons (1 in all), 10 XP (10);');
    await eventually(() => expect(inbox('idle')).toHaveLength(1));
    await s.setClock('2026-09-08T10:00:00Z');
    await s.event('lessons', 'rex', 2);
    await s.setClock('2026-09-10T10:00:00Z');
    await s.event('lessons', 'rex', 3);
    await work();
    await s.setClock('2026-09-14T08:59:59Z');
    await work();
    expect(inbox('rex')).toHaveLength(1);
    await s.setClock('2026-09-14T09:00:00Z');
    await work();
    // The workers' own pass (each second) may be sending it beside the test's.
    await eventually(() => expect(inbox('rex').map((m) => m.subject)).toEqual(['Your week from 2026-08-31 to 2026-09-06', 'Your week from 2026-09-07 to 2026-09-13']));
    expect(inbox('rex')[1].text?.trim()).toBe('5 lessons (6 in all), 50 XP (60); Three lessons;');
    // idle did nothing that week: no recap of it.
    expect(inbox('idle')).toHaveLength(1);
  });

  for (const [n, tz] of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York'].entries()) {
    it(`sends the recap at 09:00 on the Monday after, local time, not before (${tz})`, async () => {
      // Later weeks than the case above (the clock only moves forward), one per zone.
      const monday = DateTime.fromISO('2026-10-05', { zone: tz }).plus({ weeks: 2 * n });
      const id = `recap-${tz.replace('/', '-')}`;
      await s.setClock(monday.plus({ days: 2, hours: 10 }).toUTC().toISO()!);
      await s.event('lessons', { ...user(id), tz }, 1);
      await work();
      await s.setClock(monday.plus({ weeks: 1, hours: 8, minutes: 59, seconds: 59 }).toUTC().toISO()!);
      await work();
      expect(inbox(id)).toHaveLength(0);
      await s.setClock(monday.plus({ weeks: 1, hours: 9 }).toUTC().toISO()!);
      await work();
      // The workers' own passes run beside these calls: one of them may be sending it right now.
      await eventually(() => expect(inbox(id).map((m) => m.subject)).toEqual([`Your week from ${monday.toISODate()} to ${monday.plus({ days: 6 }).toISODate()}`]));
    });
  }

  it('keeps 09:00 local across the autumn DST change (New York: the week to Sunday 2026-11-01)', async () => {
    await s.setClock('2026-10-28T15:00:00Z');
    await s.event('lessons', { ...user('autumn'), tz: 'America/New_York' }, 1);
    await work();
    // Monday 2026-11-02 09:00 EST is 14:00 UTC (13:00 UTC the week before, under EDT).
    await s.setClock('2026-11-02T13:59:59Z');
    await work();
    expect(inbox('autumn')).toHaveLength(0);
    await s.setClock('2026-11-02T14:00:00Z');
    await work();
    await eventually(() => expect(inbox('autumn').map((m) => m.subject)).toEqual(['Your week from 2026-10-26 to 2026-11-01']));
  });
});
