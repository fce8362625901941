/**
 * The links of emails, followed as a user's mail client would: the one-click unsubscribe (RFC
 * 8058: a form POST on the List-Unsubscribe URL, no key), the preferences page (plain HTML, a form
 * that saves what PATCH /users/{id}/preferences saves), and tokens that cannot be forged or turned
 * into another user's; on Redis and on the Cluster.
 */
import { DateTime } from 'luxon';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../src/domain/notifications/link-tokens.js';
import { adminCreate, createAchievements } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';

describe.each(targets())('email links on %s', (target) => {
  let s: TestServer;
  let mail: MailCatcher;
  let day = DateTime.fromISO('2026-06-01T00:00:00Z');
  let lessonsId = '';

  /** Completes an achievement for a new user and delivers its email; answers the email. */
  async function emailFor(id: string): Promise<ParsedMail> {
    day = day.plus({ days: 2 });
    await s.setClock(day.set({ hour: 10 }).toISO()!);
    await s.event('lessons', { id, email: `${id}@example.test`, tz: 'UTC' }, 1);
    await s.workers!.testing.drainNow();
    await s.setClock(day.set({ hour: 17 }).toISO()!);
    await s.workers!.testing.notifyNow();
    const until = Date.now() + 10_000;
    for (;;) {
      const m = mail.to(`${id}@example.test`)[0];
      if (m) return m;
      if (Date.now() > until) throw new Error(`no email for ${id}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const unsubscribeUrl = (m: ParsedMail): string => {
    const line = m.headerLines.find((h) => h.key === 'list-unsubscribe')!.line;
    return line.slice(line.indexOf('<') + 1, line.lastIndexOf('>'));
  };
  const post = (url: string, body: string, type = 'application/x-www-form-urlencoded') =>
    fetch(url, { method: 'POST', headers: { 'content-type': type }, body });

  beforeAll(async () => {
    mail = await startMailCatcher();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SMTP_URL: mail.url } });
    await s.setClock(day.toISO()!);
    const { lessons } = await s.metrics('lessons');
    lessonsId = lessons;
    await createAchievements(s, [{ name: 'First', key: 'first', trigger: 'metric', metricId: lessons, metricValue: 1 }]);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Done', html: '<a href="{{ preferencesUrl }}">preferences</a>',
    } as never]);
    // The links point at this very server.
    expect((await s.request('PUT', '/admin/v1/notifications/settings', { body: { email: { from: 'hi@acme.test' }, publicUrl: s.url } })).status).toBe(200);
  });
  afterAll(async () => {
    await s?.close();
    await mail?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('unsubscribes at once on a one-click POST, without a key, as a form or multipart', async () => {
    const url = unsubscribeUrl(await emailFor('one-click'));
    expect(url.startsWith(`${s.url}/unsubscribe/`)).toBe(true);
    const r = await post(url, 'List-Unsubscribe=One-Click');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ unsubscribed: true });
    // Unsubscribed from all emails, the address kept.
    expect((await s.request('GET', '/api/users/one-click')).body).toMatchObject({ subscribeToEmails: false, email: 'one-click@example.test' });
    const multipart = unsubscribeUrl(await emailFor('multipart'));
    const boundary = 'x-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    expect((await post(multipart, body, `multipart/form-data; boundary=${boundary}`)).status).toBe(200);
    expect((await s.request('GET', '/api/users/multipart')).body.subscribeToEmails).toBe(false);
    // A body of another kind is refused, and changes nothing.
    const other = unsubscribeUrl(await emailFor('plain'));
    expect((await post(other, 'unsubscribe', 'text/plain')).status).toBe(415);
    expect((await s.request('GET', '/api/users/plain')).body.subscribeToEmails).toBe(true);
  });

  it('keeps the address after a one-click: no email while unsubscribed, a resubscribe without an email works', async () => {
    const url = unsubscribeUrl(await emailFor('comeback'));
    expect((await post(url, 'List-Unsubscribe=One-Click')).status).toBe(200);
    // An identification of another field keeps the address and the choice.
    expect((await s.request('PATCH', '/api/users/comeback', { body: { name: 'Cam' } })).status).toBe(200);
    expect((await s.request('GET', '/api/users/comeback')).body).toMatchObject({ subscribeToEmails: false, email: 'comeback@example.test' });
    // Nothing is sent while unsubscribed.
    const before = mail.to('comeback@example.test').length;
    day = day.plus({ days: 2 });
    await s.setClock(day.set({ hour: 10 }).toISO()!);
    await createAchievements(s, [{ name: 'Second', key: 'second', trigger: 'metric', metricId: lessonsId, metricValue: 2 }]);
    await s.event('lessons', { id: 'comeback' }, 1);
    await s.workers!.testing.drainNow();
    await s.setClock(day.set({ hour: 17 }).toISO()!);
    await s.workers!.testing.notifyNow();
    const list = (await s.request('GET', '/admin/v1/notifications/deliveries?userId=comeback')).body as { status: string; reason?: string }[];
    expect(list[0]).toMatchObject({ status: 'suppressed', reason: 'unsubscribed' });
    expect(mail.to('comeback@example.test')).toHaveLength(before);
    // The user's app subscribes the user again without sending the address: the kept one is used.
    const again = await s.request('PATCH', '/api/users/comeback', { body: { subscribeToEmails: true } });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ subscribeToEmails: true, email: 'comeback@example.test' });
    // Through the API, false still drops the address, as Trophy's.
    const off = await s.request('PATCH', '/api/users/comeback', { body: { subscribeToEmails: false } });
    expect(off.body).toMatchObject({ subscribeToEmails: false, email: null });
  });

  it('shows the preferences page (GET on either link) and saves its form as PATCH preferences does', async () => {
    const m = await emailFor('prefs');
    const pageUrl = /href="([^"]+)"/.exec(String(m.html))![1];
    expect(pageUrl.startsWith(`${s.url}/preferences/`)).toBe(true);
    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="${new URL(pageUrl).pathname}">`);
    expect(html).toContain('<input type="checkbox" name="achievement_completed" value="email" checked>');
    expect(html).not.toContain('<script');
    expect((await fetch(unsubscribeUrl(m))).status).toBe(200);
    const saved = await post(pageUrl, 'achievement_completed=push&recap=email&recap=push');
    expect(saved.status).toBe(200);
    const after = await saved.text();
    expect(after).toContain('Your preferences are saved.');
    expect(after).toContain('<input type="checkbox" name="achievement_completed" value="email">');
    expect((await s.request('GET', '/api/users/prefs/preferences')).body).toEqual({
      notifications: { achievement_completed: ['push'], recap: ['email', 'push'], reactivation: [], streak_reminder: [] },
    });
    const bad = await post(pageUrl, 'birthday=email');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/only notification types/);
  });

  it('offers "Unsubscribe from all emails" first on the link\'s page, then the types as the user gets them', async () => {
    const url = unsubscribeUrl(await emailFor('reader'));
    const prefs = await s.request('PATCH', '/api/users/reader/preferences', { body: { notifications: { recap: ['push'] } } });
    expect(prefs.status, prefs.text).toBe(200);
    const html = await (await fetch(url)).text();
    const all = html.indexOf('>Unsubscribe from all emails</button>');
    expect(all).toBeGreaterThan(0);
    expect(all).toBeLessThan(html.indexOf('type="checkbox"'));
    // In words: the types' and channels' names, not laurel's; no push boxes for a user without a device.
    expect(html).toContain('Achievements you unlock');
    expect(html).toContain('> By email</label>');
    expect(html).not.toMatch(/> (email|push)<\/label>|On your phone/);
    // Ticked as the user gets them today: the recap's email is off.
    expect(html).toContain('<input type="checkbox" name="recap" value="email">');
    expect(html).toContain('<input type="checkbox" name="achievement_completed" value="email" checked>');
    // Saving the email boxes keeps the push channel the form did not show.
    const pageUrl = url.replace('/unsubscribe/', '/preferences/');
    expect((await post(pageUrl, 'shown=email&achievement_completed=email')).status).toBe(200);
    expect((await s.request('GET', '/api/users/reader/preferences')).body.notifications).toMatchObject({
      achievement_completed: ['email', 'push'], recap: ['push'], streak_reminder: ['push'],
    });
    // The button: unsubscribed from all, the address kept, and a way back.
    const off = await post(pageUrl, 'choice=unsubscribe');
    expect(off.status).toBe(200);
    const offHtml = await off.text();
    expect(offHtml).toContain('You are unsubscribed from all emails.');
    expect(offHtml).toContain('>Subscribe again</button>');
    expect(offHtml).not.toContain('type="checkbox"');
    expect((await s.request('GET', '/api/users/reader')).body).toMatchObject({ subscribeToEmails: false, email: 'reader@example.test' });
    expect(await (await fetch(url)).text()).toContain('>Subscribe again</button>');
    const on = await post(pageUrl, 'choice=subscribe');
    expect(await on.text()).toContain('>Unsubscribe from all emails</button>');
    expect((await s.request('GET', '/api/users/reader')).body).toMatchObject({ subscribeToEmails: true, email: 'reader@example.test' });
    // A user with a device sees the phone's boxes too.
    await s.request('PATCH', '/api/users/reader', { body: { deviceTokens: ['tok-1'] } });
    const withDevice = await (await fetch(url)).text();
    expect(withDevice).toContain('<input type="checkbox" name="recap" value="push" checked> On your phone</label>');
    expect((await post(pageUrl, 'choice=everything')).status).toBe(400);
  });

  it('refuses a token that was forged, altered, or names a user who is gone: 404, nothing changed', async () => {
    const url = unsubscribeUrl(await emailFor('victim'));
    const token = url.slice(url.lastIndexOf('/') + 1);
    const [payload, mac] = token.split('.');
    const otherPayload = Buffer.from(JSON.stringify(['_', 'victim-2'])).toString('base64url');
    await s.event('lessons', { id: 'victim-2', email: 'victim-2@example.test' }, 1);
    const forged = [
      `${otherPayload}.${mac}`,
      `${payload}.${mac.slice(0, -2)}${mac.endsWith('A') ? 'BB' : 'AA'}`,
      signToken('not the installation secret', { tenant: '_', userId: 'victim-2' }),
      payload,
      'nothing',
    ];
    for (const t of forged) {
      const r = await post(`${s.url}/unsubscribe/${t}`, 'List-Unsubscribe=One-Click');
      expect(r.status, t).toBe(404);
      expect(((await r.json()) as { error: string }).error).toBe('This link not found');
      expect((await fetch(`${s.url}/preferences/${t}`)).status).toBe(404);
    }
    expect((await s.request('GET', '/api/users/victim-2')).body.subscribeToEmails).toBe(true);
    expect((await s.request('GET', '/api/users/victim')).body.subscribeToEmails).toBe(true);
  });
});
