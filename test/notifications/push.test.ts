/**
 * Push end to end, with the manual clock, against local protocol peers: an HTTP/2 server playing
 * APNs (cleartext HTTP/2 on loopback; the provider token's ES256 signature, key id, team id and
 * topic checked), an HTTP server playing FCM (the service account's JWT-bearer assertion verified
 * with its public key, the access token asked for once and used after), and one playing Expo. One
 * delivery reaches every device of a user once; tokens a provider reports gone leave the user; a
 * provider answering 503 is tried again after the backoff.
 */
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreate } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const APNS_OK = 'a'.repeat(64);
const APNS_GONE = 'b'.repeat(64);

/** A JWT's header and claims, once its signature verified with `key` (ES256: r||s). */
function verifiedJwt(jwt: string, key: KeyObject, alg: 'ES256' | 'RS256') {
  const [h, c, sig] = jwt.split('.');
  const ok = verify('sha256', Buffer.from(`${h}.${c}`), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(sig, 'base64url'));
  if (!ok) throw new Error('bad JWT signature');
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), claims: JSON.parse(Buffer.from(c, 'base64url').toString()) };
}

const listen = (server: http.Server | http2.Http2Server) => new Promise<string>((resolve) => {
  server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
});

describe.each(targets())('push notifications on %s', (target) => {
  let s: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'laurel-push-'));
  const apnsKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const fcmKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const apns: { token: string; headers: http2.IncomingHttpHeaders; body: any }[] = [];
  const fcm: { token: string; body: any }[] = [];
  const expo: any[] = [];
  let exchanges = 0;
  const fcmFailures: number[] = [];
  let apnsServer: http2.Http2Server;
  let fcmServer: http.Server;
  let expoServer: http.Server;

  beforeAll(async () => {
    apnsServer = http2.createServer();
    apnsServer.on('stream', (stream, headers) => {
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => { body += c; });
      stream.on('end', () => {
        const token = String(headers[':path']).replace('/3/device/', '');
        const jwt = String(headers.authorization).replace(/^bearer /, '');
        const { header, claims } = verifiedJwt(jwt, apnsKey.publicKey, 'ES256');
        if (header.kid !== 'KEY123' || claims.iss !== 'TEAM456' || headers['apns-topic'] !== 'com.acme.app') {
          stream.respond({ ':status': 403 });
          stream.end(JSON.stringify({ reason: 'InvalidProviderToken' }));
          return;
        }
        apns.push({ token, headers, body: JSON.parse(body) });
        if (token === APNS_GONE) {
          stream.respond({ ':status': 410 });
          stream.end(JSON.stringify({ reason: 'Unregistered' }));
        } else {
          stream.respond({ ':status': 200 });
          stream.end();
        }
      });
    });
    fcmServer = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        if (req.url === '/token') {
          const form = new URLSearchParams(body);
          const { claims } = verifiedJwt(form.get('assertion')!, fcmKey.publicKey, 'RS256');
          expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
          expect(claims).toMatchObject({ iss: 'laurel@proj.iam.example', scope: 'https://www.googleapis.com/auth/firebase.messaging' });
          exchanges++;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ access_token: 'fcm-access-1', expires_in: 3600, token_type: 'Bearer' }));
          return;
        }
        expect(req.url).toBe('/v1/projects/proj/messages:send');
        if (req.headers.authorization !== 'Bearer fcm-access-1') { res.statusCode = 401; res.end(); return; }
        const message = JSON.parse(body).message;
        fcm.push({ token: message.token, body: message });
        if (fcmFailures.length > 0) {
          res.statusCode = fcmFailures.shift()!;
          res.end('{}');
        } else if (message.token === 'fcm:gone') {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { status: 'NOT_FOUND', details: [{ errorCode: 'UNREGISTERED' }] } }));
        } else {
          res.end(JSON.stringify({ name: 'projects/proj/messages/1' }));
        }
      });
    });
    expoServer = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        const [m] = JSON.parse(body);
        expo.push({ ...m, authorization: req.headers.authorization });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ data: [m.to === 'ExponentPushToken[gone]'
          ? { status: 'error', message: 'not registered', details: { error: 'DeviceNotRegistered' } } : { status: 'ok', id: 'ticket' }] }));
      });
    });
    const [apnsUrl, fcmUrl, expoUrl] = await Promise.all([listen(apnsServer), listen(fcmServer), listen(expoServer)]);
    writeFileSync(join(dir, 'AuthKey.p8'), apnsKey.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(dir, 'service-account.json'), JSON.stringify({
      type: 'service_account', project_id: 'proj', client_email: 'laurel@proj.iam.example',
      private_key: fcmKey.privateKey.export({ type: 'pkcs8', format: 'pem' }), token_uri: `${fcmUrl}/token`,
    }));
    s = await startTestServer({
      target, clock: 'manual', workers: true, env: {
        LAUREL_APNS_KEY_FILE: join(dir, 'AuthKey.p8'), LAUREL_APNS_KEY_ID: 'KEY123', LAUREL_APNS_TEAM_ID: 'TEAM456',
        LAUREL_APNS_TOPIC: 'com.acme.app', LAUREL_APNS_URL: apnsUrl,
        LAUREL_FCM_SERVICE_ACCOUNT_FILE: join(dir, 'service-account.json'), LAUREL_FCM_URL: fcmUrl,
        LAUREL_EXPO_URL: `${expoUrl}/push`, LAUREL_EXPO_ACCESS_TOKEN: 'expo-secret',
      },
    });
    await s.setClock('2026-06-01T10:00:00Z');
    const ids = await s.metrics('lessons');
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'First lesson', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 } as never]);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'done-push', type: 'achievement_completed', channel: 'push', status: 'active',
      title: 'Well done, {{ user.name }}', body: 'You unlocked {{ achievement.name }}.',
    } as never]);
  });
  afterAll(async () => {
    await s?.close();
    for (const server of [apnsServer, fcmServer, expoServer]) await new Promise((r) => server?.close(r));
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
    rmSync(dir, { recursive: true, force: true });
  });

  const work = async () => { await s.workers!.testing.drainNow(); return s.workers!.testing.notifyNow(); };
  const deliveries = async (userId: string) => (await s.request('GET', `/admin/v1/notifications/deliveries?userId=${userId}&channel=push`)).body;

  it('reaches every device of a user once, at the hour, and removes the tokens a provider reports gone', async () => {
    const tokens = [APNS_OK, APNS_GONE, 'fcm:ok', 'fcm:gone', 'ExponentPushToken[ok]', 'ExponentPushToken[gone]'];
    await s.event('lessons', { id: 'dev', name: 'Dev', tz: 'UTC', deviceTokens: tokens }, 1);
    await work();
    expect((await deliveries('dev'))[0]).toMatchObject({ type: 'achievement_completed', channel: 'push', status: 'scheduled' });
    await s.setClock('2026-06-01T16:59:59Z');
    await work();
    expect(apns.length + fcm.length + expo.length).toBe(0);
    await s.setClock('2026-06-01T17:00:00Z');
    await work();
    expect(apns.map((x) => x.token).sort()).toEqual([APNS_OK, APNS_GONE]);
    expect(apns[0].body).toMatchObject({ aps: { alert: { title: 'Well done, Dev', body: 'You unlocked First lesson.' } }, type: 'achievement_completed' });
    expect(apns[0].headers).toMatchObject({ 'apns-push-type': 'alert', 'apns-topic': 'com.acme.app' });
    expect(fcm.map((x) => x.token).sort()).toEqual(['fcm:gone', 'fcm:ok']);
    expect(fcm[0].body.notification).toEqual({ title: 'Well done, Dev', body: 'You unlocked First lesson.' });
    expect(expo.map((x) => x.to).sort()).toEqual(['ExponentPushToken[gone]', 'ExponentPushToken[ok]']);
    expect(expo[0]).toMatchObject({ title: 'Well done, Dev', authorization: 'Bearer expo-secret' });
    expect((await deliveries('dev'))[0]).toMatchObject({ status: 'sent', attempts: 1 });
    expect((await s.request('GET', '/api/users/dev')).body.deviceTokens).toEqual([APNS_OK, 'fcm:ok', 'ExponentPushToken[ok]']);
    // Nothing is sent twice.
    await work();
    expect(apns.length + fcm.length + expo.length).toBe(6);
    expect(exchanges).toBe(1);
  });

  it('uses the FCM access token again, and tries a provider answering 503 again after the backoff', async () => {
    await s.setClock('2026-06-02T10:00:00Z');
    await s.event('lessons', { id: 'flaky', name: 'Flaky', tz: 'UTC', deviceTokens: ['fcm:flaky'] }, 1);
    await work();
    fcmFailures.push(503);
    await s.setClock('2026-06-02T17:00:00Z');
    await work();
    expect((await deliveries('flaky'))[0]).toMatchObject({ status: 'scheduled', attempts: 1 });
    await s.setClock('2026-06-02T17:01:00Z');
    await work();
    expect((await deliveries('flaky'))[0]).toMatchObject({ status: 'sent', attempts: 2 });
    expect(fcm.filter((x) => x.token === 'fcm:flaky')).toHaveLength(2);
    expect(exchanges).toBe(1);
  });

  it('suppresses a push for a user without device tokens', async () => {
    await s.setClock('2026-06-03T10:00:00Z');
    await s.event('lessons', { id: 'bare', tz: 'UTC' }, 1);
    await work();
    await s.setClock('2026-06-03T17:00:00Z');
    await work();
    expect((await deliveries('bare'))[0]).toMatchObject({ status: 'suppressed', reason: 'no_device_token' });
  });

  it('sends no push to a user of the control group, whose device tokens stay', async () => {
    const settings = (controlRatio: number) => s.request('PUT', '/admin/v1/notifications/settings', { body: { controlRatio } });
    expect((await settings(1)).status).toBe(200);
    await s.setClock('2026-06-04T10:00:00Z');
    await s.event('lessons', { id: 'held-out', tz: 'UTC', deviceTokens: [APNS_OK, 'fcm:ok'] }, 1);
    // The ratio in force when the user was created decides, whatever it is later.
    await s.setClock('2026-06-04T10:00:01Z');
    expect((await settings(0)).status).toBe(200);
    const before = apns.length + fcm.length + expo.length;
    await work();
    await s.setClock('2026-06-04T17:00:00Z');
    await work();
    // The workers' own passes run beside these calls: one of them may be settling it right now.
    await eventually(async () => expect((await deliveries('held-out'))[0]).toMatchObject({ status: 'suppressed', reason: 'control' }));
    expect(apns.length + fcm.length + expo.length).toBe(before);
    expect((await s.request('GET', '/api/users/held-out')).body).toMatchObject({ control: true, deviceTokens: [APNS_OK, 'fcm:ok'] });
  });
});
