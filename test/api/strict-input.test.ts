/**
 * Strict input (docs/api.md, "Errors"), against the real server: unknown fields refused on
 * Admin writes (400 `unknown_field` naming them, or an issue for that item, not created), ignored
 * and never stored on the Application API (the event log holds the known fields only); JSON nested
 * past 32 levels, invalid UTF-8 in a body, a path or a query, a Tenant-ID outside printable ASCII,
 * an email that is not an address: 400; headers too large: 431 with the JSON error body; an email
 * link's token never in the logs. No input gets a 5xx.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHandle } from '../../src/app/api.js';
import { loadSettings } from '../../src/lib/settings.js';
import { deletePrefix } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

/** Sends raw bytes as one HTTP/1.1 request; answers the status and the body. */
async function raw(port: number, request: Buffer): Promise<{ status: number; body: string; contentType: string }> {
  const answer = await new Promise<string>((resolve, reject) => {
    // Written, not ended: uWS takes a half-closed connection for an aborted request.
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let data = Buffer.alloc(0);
    socket.on('data', (d) => { data = Buffer.concat([data, d]); });
    socket.on('close', () => resolve(data.toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
  const [head, ...rest] = answer.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
    body: rest.join('\r\n\r\n'),
    contentType: /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '',
  };
}

const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.isBuffer(p) ? p : Buffer.from(p))));

describe('strict input', () => {
  const s = useTestServer();
  let port: number;

  beforeAll(async () => {
    port = Number(new URL(s.url).port);
    await s.metrics('lessons');
    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
  });

  const keyCount = async () => ((await s.request('GET', '/admin/v1/api-keys?limit=100')).body as unknown[]).length;

  it('refuses an unknown field of an Admin write, naming it: a misspelt tenantId creates no key', async () => {
    const before = await keyCount();
    const batch = await s.request('POST', '/admin/v1/api-keys', { body: [{ kind: 'application', tenant: 'acme' }] });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body).toEqual({ created: [], issues: [{ index: 0, severity: 'error', message: 'unknown field "tenant"' }] });
    const single = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', tenant: 'acme' } });
    expect(single.status).toBe(400);
    expect(single.body).toEqual({ code: 'unknown_field', error: expect.stringContaining('"tenant"') });
    expect(await keyCount()).toBe(before);

    const achievement = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'A', key: 'a', trigger: 'api', statuss: 'inactive' }, { name: 'B', key: 'b', trigger: 'api' }],
    });
    expect(achievement.status, achievement.text).toBe(201);
    expect(achievement.body.created.map((a: { key: string }) => a.key)).toEqual(['b']);
    expect(achievement.body.issues).toEqual([{ index: 0, severity: 'error', message: 'unknown field "statuss"' }]);

    const metric = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'M', key: 'm', colour: 'red' }] });
    expect(metric.body.issues).toEqual([{ index: 0, severity: 'error', message: 'unknown field "colour"' }]);
    const id = (await s.request('GET', '/admin/v1/metrics')).body[0].id as string;
    const update = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, nmae: 'Typo' }] });
    expect(update.body).toEqual({ updated: [], issues: [{ index: 0, severity: 'error', message: 'unknown field "nmae"' }] });

    // At any depth, with its path.
    const nested = await s.request('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: 'ada', count: 2 }] } });
    expect(nested.status).toBe(400);
    expect(nested.body.code).toBe('unknown_field');
    expect(nested.body.error).toContain('"freezes[0].count"');
    const settings = await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', metrics: [{ metricId: id, threshold: 1, weight: 2 }] },
    });
    expect(settings.status).toBe(400);
    expect(settings.body.error).toContain('"metrics[0].weight"');
    const points = await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', levels: [{ name: 'L', key: 'l', points: 1, colour: 1 }] }] });
    expect(points.body.issues).toEqual([{ index: 0, severity: 'error', message: expect.stringContaining('unknown field "colour"') }]);
  });

  it('ignores an unknown field of an Application body and never stores it', async () => {
    const filler = 'x'.repeat(5000);
    const r = await s.request('POST', '/api/metrics/lessons/event', {
      body: { user: { id: 'ignored', name: 'Ida', nickname: filler, plan: { deep: filler } }, value: 1, extra: filler },
    });
    expect(r.status, r.text).toBe(201);
    const user = await s.request('GET', '/api/users/ignored');
    expect(user.body.name).toBe('Ida');
    expect(user.text).not.toContain('nickname');
    const identified = await s.request('POST', '/api/users', { body: { id: 'ignored-2', email: 'ida@example.com', unknown: filler } });
    expect(identified.status, identified.text).toBe(201);
    expect(identified.text).not.toContain('unknown');
    // Nothing unknown reached Redis: the event log, the user hashes, anything.
    const redis = new Redis(s.settings.redisUrl);
    try {
      const keys = await redis.keys(`${s.prefix}*`);
      for (const key of keys) {
        const type = await redis.type(key);
        const dump = type === 'stream' ? JSON.stringify(await redis.xrange(key, '-', '+'))
          : type === 'hash' ? JSON.stringify(await redis.hgetall(key)) : type === 'string' ? String(await redis.get(key)) : '';
        expect(dump, key).not.toContain(filler);
        expect(dump, key).not.toContain('nickname');
      }
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });

  it('refuses JSON nested past 32 levels with a 400, and takes 32', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const event = await s.request('POST', '/api/metrics/lessons/event', {
      raw: `{"user":{"id":"deep","attributes":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}},"value":1}`,
    });
    expect(event.status).toBeLessThan(500);
    expect(event.body.code).toBe('malformed_json');
    const admin = await s.request('POST', '/admin/v1/metrics', { raw: deep(33) });
    expect(admin.status).toBe(400);
    expect(admin.body).toEqual({ code: 'malformed_json', error: expect.stringContaining('32') });
    const thirtyTwo = await s.request('POST', '/admin/v1/metrics', { raw: `[${deep(31)}]` });
    expect(thirtyTwo.status).toBe(200);
    expect(thirtyTwo.body.issues).toHaveLength(1);
    // Brackets inside strings are not nesting.
    const inString = await s.request('POST', '/admin/v1/metrics', { body: [{ name: '['.repeat(100), key: 'brackets' }] });
    expect(inString.status, inString.text).toBe(201);
  });

  it('refuses invalid UTF-8 in a body, a path or a query, so two ids never collide', async () => {
    const post = (id: number[]) => {
      const body = bytes('{"user":{"id":"u', id, '"},"value":1}');
      return raw(port, bytes(`POST /api/metrics/lessons/event HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${s.adminKey}\r\nContent-Type: application/json\r\n`,
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`, body));
    };
    for (const b of [[0xff], [0xfe], [0xc3]]) {
      const r = await post(b);
      expect(r.status, r.body).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ code: 'invalid_body', error: expect.stringContaining('UTF-8') });
    }
    const get = (path: Buffer) => raw(port, bytes('GET ', path, ` HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${s.adminKey}\r\nConnection: close\r\n\r\n`));
    for (const b of [0xff, 0xfe]) {
      const path = await get(bytes('/api/users/u', [b]));
      expect(path.status, path.body).toBe(400);
      expect(JSON.parse(path.body).code).toBe('invalid_path');
      const query = await get(bytes('/admin/v1/notifications/deliveries?userId=u', [b]));
      expect(query.status, query.body).toBe(400);
      expect(JSON.parse(query.body).code).toBe('invalid_query');
    }
    for (const q of ['%FF', '%FE', '%C3', '%ED%A0%80']) {
      const query = await s.request('GET', `/admin/v1/notifications/deliveries?userId=u${q}`);
      expect(query.status, q).toBe(400);
      expect(query.body.code).toBe('invalid_query');
    }
    expect((await s.request('GET', '/admin/v1/api-keys?limit=%zz')).body.code).toBe('invalid_query');
    // Valid UTF-8, raw or percent-encoded, is taken.
    expect((await get(bytes('/api/users/', [0xc3, 0xa9]))).status).toBe(404);
    expect((await s.request('GET', '/api/users/%C3%A9')).status).toBe(404);
  });

  it('refuses a Tenant-ID outside printable ASCII with a 400', async () => {
    const withTenant = (tenant: Buffer) => raw(port, bytes('GET /api/users/nobody HTTP/1.1\r\nHost: x\r\n',
      `X-API-KEY: ${s.adminKey}\r\nTenant-ID: `, tenant, '\r\nConnection: close\r\n\r\n'));
    // (A control character gets the connection closed by uWS before laurel sees the request.)
    for (const t of [bytes('ac', [0xc3, 0xa9], 'me'), bytes('ac', [0xe9], 'me'), bytes('a', [0x7f], 'cme')]) {
      const r = await withTenant(t);
      expect(r.status, r.body).toBe(400);
      expect(JSON.parse(r.body).code).toBe('invalid_header');
    }
    const plain = await withTenant(bytes('acme'));
    expect(plain.status).toBe(404);
    // Bytes outside ASCII alone, which uWS trims to nothing, and an empty value: refused, never the default tenant.
    for (const t of [bytes([0xc3, 0xa9]), bytes([0xe9]), bytes('')]) {
      const r = await withTenant(t);
      expect(r.status, r.body).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ code: 'invalid_header', error: expect.stringContaining('Tenant-ID is empty') });
    }
  });

  it('refuses an Idempotency-Key left empty and two Content-Lengths that differ, applying nothing', async () => {
    const body = '{"user":{"id":"twice"},"value":1}';
    const post = (headers: (string | number[] | Buffer)[]) => raw(port, bytes(
      `POST /api/metrics/lessons/event HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${s.adminKey}\r\nContent-Type: application/json\r\n`,
      ...headers, 'Connection: close\r\n\r\n', body));
    for (const key of [bytes([0xe9]), bytes('')]) {
      const r = await post([`Content-Length: ${body.length}\r\nIdempotency-Key: `, key, '\r\n']);
      expect(r.status, r.body).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ code: 'invalid_header', error: expect.stringContaining('Idempotency-Key is empty') });
    }
    const two = await post([`Content-Length: ${body.length}\r\nContent-Length: 5\r\n`]);
    expect(two.status, two.body).toBe(400);
    expect(JSON.parse(two.body)).toEqual({ code: 'invalid_header', error: expect.stringContaining('Content-Length is given twice') });
    expect((await s.request('GET', '/api/users/twice')).status).toBe(404);
    // The same length twice is one length.
    const same = await post([`Content-Length: ${body.length}\r\nContent-Length: ${body.length}\r\n`]);
    expect(same.status, same.body).toBe(201);
  });

  it('refuses an email that is not an address', async () => {
    const user = await s.request('POST', '/api/users', { body: { id: 'mail', email: 'not-an-email' } });
    expect(user.status).toBeGreaterThanOrEqual(400);
    expect(user.status).toBeLessThan(500);
    expect(user.body).toEqual({ code: 'invalid_body', error: expect.stringContaining('email must be an email address') });
    const event = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'mail', email: 'a@b@c' }, value: 1 } });
    expect(event.body.code).toBe('invalid_body');
    expect((await s.request('GET', '/api/users/mail')).status).toBe(404);
    const good = await s.request('POST', '/api/users', { body: { id: 'mail', email: 'ada.lovelace+laurel@example.co.uk' } });
    expect(good.status, good.text).toBe(201);
  });

  it('refuses a body sent to an Admin DELETE, which takes none, deleting nothing', async () => {
    const metric = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Spare', key: 'spare' }] });
    const metricId = metric.body.created[0].id as string;
    const adminKey = (await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', name: 'Spare' } })).body.id as string;
    const userKey = (await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'spare' }] })).body.created[0].id as string;
    const deletes = [`/admin/v1/metrics?ids=${metricId}`, `/admin/v1/api-keys?ids=${adminKey}`, `/admin/v1/application-api-keys?ids=${userKey}`];
    for (const path of deletes) {
      for (const [raw, code] of [[JSON.stringify({ ids: ['x'] }), 'unknown_field'], ['garbage', 'malformed_json']]) {
        const r = await s.request('DELETE', path, { raw });
        expect(r.status, `${path} ${raw}: ${r.text}`).toBe(400);
        expect(r.body).toMatchObject({ code, error: expect.any(String) });
      }
    }
    expect((await s.request('GET', `/admin/v1/metrics/${metricId}`)).status).toBe(200);
    expect((await s.request('GET', `/admin/v1/api-keys/${adminKey}`)).status).toBe(200);
    // `{}` and no body are what they take.
    for (const [i, path] of deletes.entries()) {
      const r = await s.request('DELETE', path, i === 0 ? { raw: '{}' } : {});
      expect(r.status, r.text).toBe(200);
      expect(r.body.deleted, path).toHaveLength(1);
    }
  });

  it('answers headers too large with 431 and the JSON error body', async () => {
    const big = await raw(port, bytes(`GET /api/users/nobody HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${s.adminKey}\r\nX-Junk: ${'j'.repeat(20_000)}\r\nConnection: close\r\n\r\n`));
    expect(big.status).toBe(431);
    expect(big.contentType).toBe('application/json');
    expect(JSON.parse(big.body)).toEqual({ code: 'headers_too_large', error: expect.stringContaining('16384') });
    const many = await raw(port, bytes(`GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 40 }, (_, i) => `X-H${i}: ${'h'.repeat(500)}\r\n`).join('')}Connection: close\r\n\r\n`));
    expect(many.status).toBe(431);
    expect(JSON.parse(many.body).code).toBe('headers_too_large');
    // Under the limit, as before.
    const fine = await raw(port, bytes(`GET /health HTTP/1.1\r\nHost: x\r\nX-Junk: ${'j'.repeat(10_000)}\r\nConnection: close\r\n\r\n`));
    expect(fine.status).toBe(200);
  });

  it('reads the first of a repeated header, as every header, in the visit that sums their size', async () => {
    const users = (...lines: string[]) => raw(port, bytes(`GET /api/users/nobody HTTP/1.1\r\nHost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`));
    expect((await users(`X-API-KEY: ${s.adminKey}`, 'X-API-KEY: wrong')).status).toBe(404);
    expect((await users('X-API-KEY: wrong', `X-API-KEY: ${s.adminKey}`)).status).toBe(401);
    const body = '{"user":{"id":"twice"},"value":1}';
    const event = (...lines: string[]) => raw(port, bytes(
      'POST /api/metrics/lessons/event HTTP/1.1\r\nHost: x\r\n', `X-API-KEY: ${s.adminKey}\r\n`, lines.map((l) => `${l}\r\n`).join(''),
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ));
    expect((await event('Content-Type: application/json', 'Content-Type: text/plain')).status).toBe(201);
    expect((await event('Content-Type: text/plain', 'Content-Type: application/json')).status).toBe(415);
    const replayed = await event('Idempotency-Key: first', 'Idempotency-Key: second');
    expect(replayed.status, replayed.body).toBe(201);
    expect(JSON.parse(replayed.body).idempotencyKey).toBe('first');
    expect((await event('Idempotency-Key: first')).status).toBe(202);
  });
});

describe('the logs', () => {
  it('never hold an email link\'s token', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const prefix = `t${randomBytes(5).toString('hex')}`;
    const settings = loadSettings({
      ...process.env, HOST: '127.0.0.1', PORT: '0', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: `k-${prefix}`, LAUREL_CLOCK: 'system', REDIS_CLUSTER_NODES: '',
    });
    let api: ApiHandle | null = null;
    try {
      api = await startApi(settings, pino({ level: 'debug' }, sink));
      const base = `http://127.0.0.1:${api.port}`;
      const token = `secret-token-${randomBytes(8).toString('hex')}`;
      for (const [method, path] of [['GET', '/preferences/'], ['POST', '/preferences/'], ['GET', '/unsubscribe/'], ['POST', '/unsubscribe/'],
        ['DELETE', '/unsubscribe/']] as const) {
        const r = await fetch(base + path + token, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: method === 'POST' ? 'a=b' : undefined });
        expect(r.status, `${method} ${path}`).toBeLessThan(500);
      }
      const logs = lines.join('');
      expect(logs).toContain('/unsubscribe/:token');
      expect(logs).not.toContain(token);
    } finally {
      await api?.close();
      await deletePrefix(settings, prefix);
    }
  });
});
