/**
 * The user list (`GET /admin/v1/users`, docs/api.md; the directory the log drain keeps:
 * src/postgres/analytics/directory.ts), on single Redis and the Cluster: users identified inline,
 * explicitly and through an API completion are found by id prefix (LIKE's own characters taken
 * literally), by email prefix whatever its letter case, and by user attributes, alone and
 * together; an identification that changes an email, an attribute or unsubscribes (dropping the
 * email) is what the list shows after the drain; 130 users page by 50 in id order, each once; a
 * key bound to a tenant lists that tenant's users only; bad parameters are 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

interface Listed {
  users: { id: string; email: string | null; name: string | null; attributes: Record<string, string>; firstSeen: string; lastActive: string | null }[];
  next: string | null;
}

describe.each(targets())('the user list (%s)', (target) => {
  let s: TestServer;
  beforeAll(async () => { s = await startTestServer({ target, workers: true }); });
  afterAll(async () => {
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
    await s?.close();
  });

  const list = async (query: string, opts: { key?: string; tenant?: string } = {}): Promise<Listed> => {
    const r = await s.request<Listed>('GET', `/admin/v1/users?${query}`, opts);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const ids = async (query: string, opts: { key?: string; tenant?: string } = {}) => (await list(query, opts)).users.map((u) => u.id);

  it('finds users by id prefix, email and attributes, and follows their changes', async () => {
    await s.metrics('lessons');
    await s.attributes('user', 'plan', 'country');
    expect((await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Helper', key: 'helper', trigger: 'api' }] })).status).toBe(201);
    expect((await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] })).status).toBe(201);

    await s.event('lessons', { id: 'ada-1', email: 'Ada.Lovelace@Example.com', name: 'Ada', attributes: { plan: 'pro', country: 'uk' } }, 1);
    await s.event('lessons', { id: 'ada-2', email: 'ada2@example.org', attributes: { plan: 'free' } }, 1);
    expect((await s.request('PUT', '/api/users/bob', { body: { email: 'bob@example.com', name: 'Bob', attributes: { plan: 'pro', country: 'fr' } } })).status).toBe(201);
    const done = await s.request('POST', '/api/achievements/helper/complete', { body: { user: { id: 'cy', email: 'cy@example.com', attributes: { plan: 'pro' } } } });
    expect(done.status, done.text).toBe(201);
    // LIKE's own characters in ids: a prefix is taken literally.
    await s.event('lessons', 'a_b', 1);
    await s.event('lessons', 'axb', 1);
    await s.event('lessons', 'a%c', 1);
    // Another tenant's Ada.
    const other = await s.request('POST', '/api/metrics/lessons/event', { tenant: 'acme', body: { user: { id: 'ada-9', email: 'ada@acme.example' }, value: 1 } });
    expect(other.status, other.text).toBe(201);
    await s.workers!.testing.drainNow();

    expect(await ids('idPrefix=ada')).toEqual(['ada-1', 'ada-2']);
    expect(await ids('idPrefix=a_')).toEqual(['a_b']);
    expect(await ids('idPrefix=a%25')).toEqual(['a%c']);
    expect(await ids('email=ADA')).toEqual(['ada-1', 'ada-2']);
    expect(await ids('email=ada.lovelace%40example.COM')).toEqual(['ada-1']);
    expect(await ids('userAttributes=plan:pro')).toEqual(['ada-1', 'bob', 'cy']);
    expect(await ids('userAttributes=plan:pro,country:uk')).toEqual(['ada-1']);
    expect(await ids('idPrefix=b&userAttributes=plan:pro&email=bob')).toEqual(['bob']);
    expect(await ids('idPrefix=zzz')).toEqual([]);
    const ada = (await list('idPrefix=ada-1')).users[0];
    expect(ada).toEqual({
      id: 'ada-1', email: 'Ada.Lovelace@Example.com', name: 'Ada', attributes: { plan: 'pro', country: 'uk' },
      firstSeen: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), lastActive: new Date().toISOString().slice(0, 10),
    });
    // bob was identified without an event: never active.
    expect((await list('idPrefix=bob')).users[0]).toMatchObject({ name: 'Bob', lastActive: null });
    expect(await ids('idPrefix=ada', { tenant: 'acme' })).toEqual(['ada-9']);

    // Changes: a new email, an attribute set (the others kept), an unsubscription that drops the email.
    expect((await s.request('PATCH', '/api/users/ada-2', { body: { email: 'countess@example.net', attributes: { plan: 'pro' } } })).status).toBe(200);
    await s.event('lessons', { id: 'bob', subscribeToEmails: false }, 1);
    await s.workers!.testing.drainNow();
    expect(await ids('email=ada')).toEqual(['ada-1']);
    expect(await ids('email=countess')).toEqual(['ada-2']);
    expect(await ids('userAttributes=plan:pro')).toEqual(['ada-1', 'ada-2', 'bob', 'cy']);
    expect((await list('idPrefix=bob')).users[0]).toMatchObject({ email: null, attributes: { plan: 'pro', country: 'fr' } });
    expect(await ids('email=bob')).toEqual([]);
  });

  it('pages in id order, each user once', async () => {
    const users = Array.from({ length: 130 }, (_, i) => `p${String(i).padStart(3, '0')}`);
    const batch = await s.request('POST', '/admin/v1/metrics/events', { body: users.map((id) => ({ key: 'lessons', user: { id }, value: 1 })) });
    expect(batch.status, batch.text).toBeLessThan(300);
    await s.workers!.testing.batchesNow();
    await s.workers!.testing.drainNow();
    const seen: string[] = [];
    let after = '';
    let pages = 0;
    for (;;) {
      const page = await list(`idPrefix=p&limit=50${after === '' ? '' : `&after=${encodeURIComponent(after)}`}`);
      seen.push(...page.users.map((u) => u.id));
      pages++;
      if (page.next === null) break;
      expect(page.users).toHaveLength(50);
      after = page.next;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(users);
  });

  it('holds a key bound to a tenant to its users, and refuses bad parameters with a 4xx', async () => {
    const made = await s.request('POST', '/admin/v1/api-keys', { body: { name: 'acme admin', kind: 'admin', tenantId: 'acme' } });
    expect(made.status, made.text).toBe(201);
    const key = (made.body as { key: string }).key;
    expect(await ids('', { key })).toEqual(['ada-9']);
    expect(await ids('idPrefix=ada-1', { key })).toEqual([]);
    expect((await s.request('GET', '/admin/v1/users', { key, tenant: 'other' })).status).toBe(403);
    expect((await s.request('GET', '/admin/v1/users?limit=0')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/users?limit=101')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/users?idPrefix=%00')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/users?userAttributes=plan')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/users?userAttributes=nothing:x')).status).toBe(422);
    expect((await s.request('GET', '/admin/v1/users?userAttributes=plan:%00')).status).toBe(400);
  });
});
