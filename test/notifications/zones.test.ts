/**
 * A change of a user's zone moves what is still pending: an achievement email scheduled at 17:00 in
 * New York goes out at 17:00 in Pago Pago once the user's zone changes (with the manual clock,
 * against a real SMTP server on loopback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreate } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';

describe.each(targets())('a zone change on %s', (target) => {
  let s: TestServer;
  let mail: MailCatcher;
  const work = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.notifyNow(); };

  beforeAll(async () => {
    mail = await startMailCatcher();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: mail.url } });
    await s.setClock('2026-06-01T12:00:00Z');
    const ids = await s.metrics('lessons');
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'First lesson', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 } as never]);
    expect((await s.request('PUT', '/admin/v1/notifications/settings', { body: { email: { from: 'a@acme.test' }, publicUrl: 'https://acme.test' } })).status).toBe(200);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Well done', text: 'Well done.',
    } as never]);
  });
  afterAll(async () => {
    await s?.close();
    await mail?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('times what is still pending again in the new zone, for the same occasion', async () => {
    // 08:00 in New York: due at 17:00 there (21:00 UTC).
    await s.event('lessons', { id: 'mover', email: 'mover@example.test', tz: 'America/New_York' }, 1);
    await work();
    const scheduled = async () => (await s.request('GET', '/admin/v1/notifications/deliveries?userId=mover')).body[0].scheduledFor;
    expect(await scheduled()).toBe('2026-06-01T21:00:00.000Z');
    // The user moves to Pago Pago (UTC-11): 17:00 there on the same day is 04:00 UTC the next.
    const r = await s.request('PUT', '/api/users/mover', { body: { tz: 'Pacific/Pago_Pago' } });
    expect(r.status, r.text).toBeLessThan(300);
    await work();
    expect(await scheduled()).toBe('2026-06-02T04:00:00.000Z');
    await s.setClock('2026-06-01T21:00:00Z');
    await work();
    expect(mail.to('mover@example.test')).toHaveLength(0);
    await s.setClock('2026-06-02T04:00:00Z');
    await work();
    // The workers' own pass (each second) may be sending it beside the test's.
    await eventually(() => expect(mail.to('mover@example.test')).toHaveLength(1));
  });
});
