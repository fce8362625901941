/**
 * The audit log (docs/api.md, "Audit log"), against the real server and workers, on single Redis
 * and on the Cluster: every Admin write operation `/openapi.json` lists leaves an entry with its
 * status, refused or not; an entry names what its write touched and holds no secret (keys,
 * signing secrets, device tokens, a URL's username and password); a key bound to a tenant sees
 * its tenant's entries only; pages by cursor list each entry once, newest first, filtered by key,
 * operation and time; a bad query is a 400 (every parameter); the workers delete what is past
 * LAUREL_AUDIT_RETENTION_DAYS; each entry keeps its request's id (the answer's X-Request-Id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView, AuditPageView } from '../../src/model/views.js';
import { erasureDone } from '../support/admin.js';
import { deletePostgresRows, MISSING, startTestServer, targets, type TestServer } from '../support/server.js';

const WRITES = ['post', 'put', 'patch', 'delete'];

describe.each(targets())('the audit log on %s', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.metrics('lessons');
  });
  afterAll(async () => {
    if (s === undefined) return;
    await s.close();
    await deletePostgresRows(s.settings, [s.prefix]);
  });

  /** A request as sent, its answer unchecked (most of the walk's are refusals). */
  async function send(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(s.url + path, {
      method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }

  /** Every entry `key` may see (the admin key's by default) matching `query`, newest first, following the cursor. */
  async function entries(query = '', key = s.adminKey, limit = 100): Promise<AuditEntryView[]> {
    const all: AuditEntryView[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; text: string; body: AuditPageView } = await s.request<AuditPageView>('GET', `/admin/v1/audit?limit=${limit}${query}${cursor === null ? '' : `&cursor=${cursor}`}`, { key });
      expect(page.status, page.text).toBe(200);
      all.push(...page.body.entries);
      cursor = page.body.next;
    } while (cursor !== null);
    return all;
  }

  /** The entries once the workers copied into Postgres every answer so far. */
  async function copied(query = '', key = s.adminKey): Promise<AuditEntryView[]> {
    await s.api.audit.settle();
    await s.workers!.testing.auditNow();
    return entries(query, key);
  }

  async function adminKey(name: string, tenantId?: string): Promise<{ id: string; key: string }> {
    const r = await s.request('POST', '/admin/v1/api-keys', { body: [{ name, kind: 'admin', ...(tenantId === undefined ? {} : { tenantId }) }] });
    expect(r.status, r.text).toBe(201);
    return r.body.created[0] as { id: string; key: string };
  }

  it('records every Admin write of /openapi.json, refused ones too, with its status', { timeout: 60_000 }, async () => {
    const doc = await s.request('GET', '/openapi.json');
    const ops: string[] = [];
    for (const [path, item] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of WRITES) if (path.startsWith('/admin/') && item[method] !== undefined) ops.push(`${method.toUpperCase()} ${path}`);
    }
    expect(ops).toContain('DELETE /admin/v1/users/{id}');
    expect(ops.length).toBeGreaterThan(40);
    const walker = await adminKey('walker');
    const answered = new Map<string, number>();
    for (const op of ops) {
      const [method, path] = op.split(' ');
      // Every path parameter something that does not exist; a body that is no valid one (or none).
      const r = await send(method, path.replace(/\{[^}]+\}/g, MISSING), walker.key, method === 'DELETE' ? undefined : {});
      expect(r.status, `${op}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
      answered.set(op, r.status);
    }
    expect([...answered.values()].some((status) => status < 300)).toBe(true);
    expect([...answered.values()].some((status) => status >= 400)).toBe(true);

    const found = await copied(`&keyId=${walker.id}`);
    expect(found.map((e) => `${e.operation} ${e.status}`).sort()).toEqual([...answered].map(([op, status]) => `${op} ${status}`).sort());
    for (const e of found) expect(e).toMatchObject({ keyId: walker.id, keyName: 'walker' });
  });

  it('names what each write touched: the ids its answer gives, else its path\'s; an erasure by its id, not the user\'s', async () => {
    const me = await adminKey('toucher');
    const created = await send('POST', '/admin/v1/metrics', me.key, [{ name: 'Touched', key: `touched-${target}` }]);
    expect(created.status).toBe(201);
    const id = created.body.created[0].id as string;
    expect((await send('PATCH', '/admin/v1/metrics', me.key, [{ id, name: 'Touched again' }])).status).toBe(200);
    expect((await send('DELETE', `/admin/v1/metrics?ids=${id}`, me.key)).status).toBe(200);
    await s.event('lessons', 'erased-ada', 1);
    const erased = await send('DELETE', '/admin/v1/users/erased-ada', me.key);
    expect(erased.status).toBe(202);
    expect((await send('DELETE', '/admin/v1/users/nobody-here', me.key)).status).toBe(404);
    const { eventId } = await s.event('lessons', 'voided-bo', 2);
    const voided = await send('POST', '/admin/v1/events/void', me.key, [{ eventId, reason: 'a test' }]);
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);

    const found = await copied(`&keyId=${me.id}`);
    expect(found.map((e) => [e.operation, e.ids, e.status, e.tenantId])).toEqual([
      ['POST /admin/v1/events/void', [eventId], 200, '_'],
      ['DELETE /admin/v1/users/{id}', ['nobody-here'], 404, '_'],
      ['DELETE /admin/v1/users/{id}', [erased.body.erasureId], 202, '_'],
      ['DELETE /admin/v1/metrics', [id], 200, null],
      ['PATCH /admin/v1/metrics', [id], 200, null],
      ['POST /admin/v1/metrics', [id], 201, null],
    ]);
    expect(found[5].body).toEqual([{ name: 'Touched', key: `touched-${target}` }]);
    expect(found[2].body).toBe(null);
  });

  it('keeps each write\'s request id, as its answer\'s X-Request-Id gave it', async () => {
    const me = await adminKey('identified');
    const answers = [
      await s.request('POST', '/admin/v1/metrics', { key: me.key, body: [{ name: 'Identified', key: `identified-${target}` }] }),
      await s.request('POST', '/admin/v1/metrics', { key: me.key, body: { name: 'Not a list' } }),
      await s.request('DELETE', '/admin/v1/users/nobody-known', { key: me.key }),
    ];
    const ids = answers.map((r) => r.headers.get('x-request-id'));
    expect(answers.map((r) => r.status)).toEqual([201, 400, 404]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{10}-[0-9a-z]+$/);
    expect(new Set(ids).size).toBe(3);
    // A client's own X-Request-Id is not taken (it could name a user where an erasure does not look).
    const sent = await s.request('GET', '/admin/v1/metrics', { headers: { 'x-request-id': 'from-the-client' } });
    expect(sent.headers.get('x-request-id')).toMatch(/^[0-9a-f]{10}-[0-9a-z]+$/);
    const found = await copied(`&keyId=${me.id}`);
    expect(found.map((e) => e.requestId)).toEqual([...ids].reverse());
  });

  it('keeps no secret: no key, signing secret, device token or credentials of a URL', async () => {
    const me = await adminKey('secretive');
    const made = [me.key, s.adminKey];
    const app = await send('POST', '/admin/v1/api-keys', me.key, [{ name: 'app', kind: 'application' }]);
    expect(app.status).toBe(201);
    made.push(app.body.created[0].key);
    // A URL with credentials is refused (an issue), and recorded without them.
    const refused = await send('POST', '/admin/v1/webhooks', me.key, [{ name: 'Hook', url: 'https://ops:hunter2-password@hooks.example.com/in', events: ['achievement.completed'] }]);
    expect(refused.body.issues).toHaveLength(1);
    const hook = await send('POST', '/admin/v1/webhooks', me.key, [{ name: 'Hook', url: 'https://hooks.example.com/in?token=tok-in-query&x=1', events: ['achievement.completed'] }]);
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    made.push(hook.body.created[0].secret);
    const rotated = await send('POST', `/admin/v1/webhooks/${hook.body.created[0].id}/secret`, me.key);
    expect(rotated.status).toBe(200);
    made.push(rotated.body.secret);
    await s.event('lessons', 'tokened', 1);
    const batch = await send('POST', '/admin/v1/metrics/events', me.key, [
      { key: 'lessons', user: { id: 'tokened', deviceTokens: ['device-token-secret'] }, value: 1 },
    ]);
    expect(batch.status, JSON.stringify(batch.body)).toBeLessThan(500);
    const userKey = await send('POST', '/admin/v1/application-api-keys', me.key, [{ userId: 'tokened' }]);
    expect(userKey.status, JSON.stringify(userKey.body)).toBe(201);
    made.push(userKey.body.created[0].key);

    const found = await copied(`&keyId=${me.id}`);
    expect(found).toHaveLength(6);
    const text = JSON.stringify(found);
    for (const secret of [...made, 'hunter2-password', 'tok-in-query', 'device-token-secret']) expect(text).not.toContain(secret);
    expect(found.filter((e) => e.operation === 'POST /admin/v1/webhooks').map((e) => e.body)).toEqual([
      [{ name: 'Hook', url: 'https://hooks.example.com/in?token=[redacted]&x=[redacted]', events: ['achievement.completed'] }],
      [{ name: 'Hook', url: 'https://[redacted]:[redacted]@hooks.example.com/in', events: ['achievement.completed'] }],
    ]);
    const batchEntry = found.find((e) => e.operation === 'POST /admin/v1/metrics/events')!;
    expect(batchEntry.body).toEqual([{ key: 'lessons', user: { id: 'tokened', deviceTokens: '[redacted]' }, value: 1 }]);
  });

  it('leaves no trace of an erased user: the entries that named them name the erasure', { timeout: 30_000 }, async () => {
    const me = await adminKey('eraser');
    const user = `gone-${target}`;
    await s.event('lessons', user, 1);
    // A metric whose key reads as the user's id: not theirs.
    await s.metrics(user);
    const batch = await send('POST', '/admin/v1/metrics/events', me.key, [
      { key: 'lessons', user: { id: user, email: `${user}@example.com`, name: 'Gone Soon' }, value: 1 },
      { key: 'lessons', user: { id: 'stays' }, value: 1 },
      { key: user, user: { id: 'stays' }, value: 1 },
    ]);
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    expect((await send('POST', '/admin/v1/streaks/freezes', me.key, { freezes: [{ userId: user }, { userId: 'stays' }] })).status).toBeLessThan(500);
    await s.workers!.testing.batchesNow();
    const erased = await send('DELETE', `/admin/v1/users/${user}`, me.key);
    expect(erased.status).toBe(202);
    const { erasureId } = erased.body as { erasureId: string };
    await erasureDone(s, erasureId);

    const found = await copied(`&keyId=${me.id}`);
    expect(found.map((e) => e.operation)).toEqual(['DELETE /admin/v1/users/{id}', 'POST /admin/v1/streaks/freezes', 'POST /admin/v1/metrics/events']);
    expect(JSON.stringify(found)).not.toMatch(new RegExp(`${user}@|Gone Soon|"id":"${user}"|"userId":"${user}"`));
    expect(found[2].body).toEqual([
      { key: 'lessons', user: { erasureId }, value: 1 }, { key: 'lessons', user: { id: 'stays' }, value: 1 }, { key: user, user: { id: 'stays' }, value: 1 },
    ]);
    expect(found[1].body).toEqual({ freezes: [{ erasureId }, { userId: 'stays' }] });
  });

  it('shows a key bound to a tenant its tenant\'s entries only', async () => {
    const tenant = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `audit-${target}`, name: 'Audited' }] });
    expect(tenant.status, tenant.text).toBe(201);
    const tenantId = tenant.body.created[0].id as string;
    const bound = await adminKey('bound', tenantId);
    // Its own writes (refused or not), and the account's key's write for the tenant.
    expect((await send('DELETE', '/admin/v1/users/nobody-bound', bound.key)).status).toBe(404);
    expect((await send('POST', '/admin/v1/metrics', bound.key, [{ name: 'No', key: 'no' }])).status).toBe(403);
    const forTenant = await s.request('DELETE', '/admin/v1/users/nobody-tenant', { tenant: `audit-${target}` });
    expect(forTenant.status).toBe(404);
    // Refused for the tenant they name: the bound key naming another (its tenant's entry), the
    // account's key one that does not exist (the whole account's).
    const elsewhere = await s.request('DELETE', '/admin/v1/users/nobody-elsewhere', { key: bound.key, tenant: 'someone-else' });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([403, 'wrong_tenant']);
    const nowhere = await s.request('DELETE', '/admin/v1/users/nobody-nowhere', { tenant: `no-such-${target}` });
    expect([nowhere.status, nowhere.body.code]).toEqual([404, 'tenant_not_found']);

    const seen = await copied('', bound.key);
    expect(seen.map((e) => [e.operation, e.ids, e.status])).toEqual([
      ['DELETE /admin/v1/users/{id}', ['nobody-elsewhere'], 403],
      ['DELETE /admin/v1/users/{id}', ['nobody-tenant'], 404],
      ['POST /admin/v1/metrics', [], 403],
      ['DELETE /admin/v1/users/{id}', ['nobody-bound'], 404],
    ]);
    for (const e of seen) expect(e.tenantId).toBe(tenantId);
    // The account's key sees them among the rest.
    const all = await entries();
    expect(all.length).toBeGreaterThan(seen.length);
    expect(all.filter((e) => e.tenantId === tenantId).map((e) => e.id)).toEqual(seen.map((e) => e.id));
    expect(all.filter((e) => e.ids.includes('nobody-nowhere')).map((e) => [e.keyId, e.tenantId, e.status])).toEqual([[expect.any(String), null, 404]]);
  });

  it('pages by cursor, newest first, each entry once, filtered by key, operation and time', async () => {
    const me = await adminKey('pager');
    // A minute apart on the manual clock.
    for (let i = 0; i < 7; i++) {
      await s.setClock(`2029-06-01T10:0${i}:00Z`);
      expect((await send('POST', '/admin/v1/metrics', me.key, [{ name: `P${i}`, key: `p${i}-${target}` }])).status).toBe(201);
    }
    await s.setClock('2029-06-01T10:07:00Z');
    expect((await send('DELETE', '/admin/v1/metrics', me.key)).status).toBe(400);
    const whole = await copied();
    const paged = await entries('', s.adminKey, 3);
    expect(paged.map((e) => e.id)).toEqual(whole.map((e) => e.id));
    expect(new Set(paged.map((e) => e.id)).size).toBe(paged.length);
    const times = paged.map((e) => [e.at, e.id].join(' '));
    expect(times).toEqual([...times].sort().reverse());

    const mine = await entries(`&keyId=${me.id}`, s.adminKey, 2);
    expect(mine).toHaveLength(8);
    expect(mine.slice(1).map((e) => e.body)).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => [{ name: `P${i}`, key: `p${i}-${target}` }]));
    const posts = await entries(`&keyId=${me.id}&operation=${encodeURIComponent('POST /admin/v1/metrics')}`);
    expect(posts).toHaveLength(7);
    const refused = await entries(`&keyId=${me.id}&operation=${encodeURIComponent('DELETE /admin/v1/metrics')}`);
    expect(refused.map((e) => e.status)).toEqual([400]);
    // Time: from an entry's instant (included) up to another's (excluded); a whole day.
    const [newest, , third] = mine;
    const span = await entries(`&keyId=${me.id}&from=${encodeURIComponent(third.at)}&to=${encodeURIComponent(newest.at)}`);
    expect(span.map((e) => e.id)).toEqual([mine[1].id, third.id]);
    expect(await entries(`&keyId=${me.id}&from=2029-06-01&to=2029-06-01`)).toHaveLength(8);
    expect(await entries(`&keyId=${me.id}&from=2029-06-02`)).toEqual([]);
    expect(await entries(`&keyId=${me.id}&to=1999-12-31`)).toEqual([]);
  });

  it('refuses a bad query with 400 invalid_query', async () => {
    const bad = [
      'from=2026-13-01', 'to=yesterday', 'from=2026-02-30', 'from=2026-03-02T25:00:00Z', 'from=0000-01-01', 'limit=0', 'limit=101',
      'limit=ten', 'cursor=not-a-cursor', `cursor=${Buffer.from('[1,2]').toString('base64url')}`, 'operation=GET%20/admin/v1/audit',
      'operation=PATCH', `keyId=${'k'.repeat(65)}`, 'from=2026-03-02&to=2026-03-01', 'limit=5&limit=6',
      // An id Postgres takes as no text.
      `cursor=${Buffer.from(JSON.stringify([1, '\u0000'])).toString('base64url')}`, `cursor=${Buffer.from('[1,"\\ud800"]').toString('base64url')}`,
      // An offset or an hour out of range, and other malformed instants, in `from` and in `to`.
      'from=2026-03-02T08:00:00%2B99:99', 'to=2026-03-02T08:00:00%2B99:99', 'from=2026-03-02T08:00:00%2B24:00', 'to=2026-03-02T08:00:00-25:00',
      'from=2026-03-02T08:00:00%2B05:60', 'to=2026-03-02T24:00:00Z', 'from=2026-03-02T08:00:00+01:00', 'from=2026-03-02T08:00:00',
      'to=2026-03-02T08:00:00.1234567890Z', 'from=1970-01-01T00:30:00%2B01:00', 'from=2026-03-02&from=2026-03-03',
      // Every other parameter: a NUL, bytes that are no UTF-8, a number that is no integer, an operation of no form, a cursor no page gave.
      'keyId=%00', 'keyId=%FF', 'limit=1.5', 'limit=-1', 'limit=%2B5', 'operation=POST%20/api/metrics', 'operation=post%20/admin/v1/metrics',
      `cursor=${Buffer.from('[]').toString('base64url')}`, `cursor=${Buffer.from(JSON.stringify([-1, 'x'])).toString('base64url')}`,
    ];
    for (const query of bad) {
      const r = await s.request('GET', `/admin/v1/audit?${query}`);
      expect(r.status, `${query}: ${r.text}`).toBe(400);
      expect(r.body.code, query).toBe('invalid_query');
    }
    expect((await s.request('GET', '/admin/v1/audit?from=2026-03-02T08:00:00%2B01:00&to=2026-03-02')).status).toBe(200);
    expect((await s.request('GET', '/admin/v1/audit?from=2026-03-01T08:00:00%2B23:59&to=2026-03-02T08:00:00-23:59')).status).toBe(200);
    // The calendar's ends: the whole of it.
    expect((await s.request('GET', '/admin/v1/audit?from=1970-01-01&to=9999-12-31')).status).toBe(200);
    const end = Buffer.from(JSON.stringify([Date.UTC(10000, 0, 1), 'x'])).toString('base64url');
    expect((await s.request('GET', `/admin/v1/audit?cursor=${end}`)).status).toBe(400);
  });

  it('deletes the entries past LAUREL_AUDIT_RETENTION_DAYS (365 by default)', async () => {
    const me = await adminKey('keeper');
    await s.setClock('2030-01-01T00:00:00Z');
    expect((await send('POST', '/admin/v1/metrics', me.key, [{ name: 'Old', key: `old-${target}` }])).status).toBe(201);
    await s.setClock('2030-01-02T00:00:00Z');
    expect((await send('POST', '/admin/v1/metrics', me.key, [{ name: 'Kept', key: `kept-${target}` }])).status).toBe(201);
    await s.setClock('2031-01-01T12:00:00Z');
    expect((await copied(`&keyId=${me.id}`)).map((e) => e.at)).toEqual(['2030-01-02T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);

    expect(await s.workers!.testing.pruneAuditNow()).toBeGreaterThan(0);
    expect((await entries(`&keyId=${me.id}`)).map((e) => e.body)).toEqual([[{ name: 'Kept', key: `kept-${target}` }]]);
    const left = await entries();
    expect(left.length).toBeGreaterThan(0);
    // 365 days before the clock: 2030-01-01T12:00Z.
    for (const e of left) expect(e.at >= '2030-01-01T12:00:00.000Z', e.at).toBe(true);
  });
});
