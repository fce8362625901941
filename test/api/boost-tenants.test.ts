/**
 * A points boost for one user is for that user of the tenant the creating request acts for
 * (docs/api.md, "Tenants and keys"): the same user id in another tenant earns without it, on
 * events and in the user's boosts read; a key bound to a tenant lists the boosts for everyone and
 * its own users' ones, never another tenant's user boost. Single Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

describe('a boost for one user', () => {
  let s: TestServer;
  let xp: string;
  let boundKey: string;
  const boosts: Record<string, string> = {};

  const event = async (user: string, tenant?: string) => {
    const r = await s.request('POST', '/api/metrics/lessons/event', { tenant, body: { user: { id: user }, value: 1 } });
    expect(r.status, r.text).toBe(201);
    return r.body.points.xp.added as number;
  };
  const boost = async (name: string, user: string | null, multiplier: number, tenant?: string) => {
    const r = await s.request('POST', `/admin/v1/points/${xp}/boosts`, {
      tenant, body: [{ name, start: '2026-06-01', multiplier, ...(user === null ? {} : { userId: user }) }],
    });
    expect(r.status, r.text).toBe(201);
    boosts[name] = r.body.created[0].id;
  };

  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual' });
    await s.setClock('2026-06-02T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    const tenants = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(tenants.status, tenants.text).toBe(201);
    const made = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(made.status, made.text).toBe(201);
    xp = made.body.created[0].id;
    // The default tenant's alice, acme's dave (named by Tenant-ID), and everyone's.
    await boost('Alice double', 'alice', 2);
    await boost('Dave triple', 'dave', 3, 'acme');
    await boost('Everyone', null, 1.5);
    const bound = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: 'acme', name: 'Acme admin' } });
    expect(bound.status, bound.text).toBe(201);
    boundKey = bound.body.key;
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('multiplies the awards of its own tenant\'s user only', async () => {
    // 10 points, × 1.5 for everyone, × the user's own boost (rounded down each time).
    expect(await event('alice')).toBe(30);
    expect(await event('alice', 'acme')).toBe(15);
    expect(await event('dave', 'acme')).toBe(45);
    expect(await event('dave')).toBe(15);
  });

  it('is listed for its own tenant\'s user only', async () => {
    const names = async (user: string, tenant?: string) => {
      const r = await s.request('GET', `/api/users/${user}/points/xp/boosts`, { tenant });
      expect(r.status, r.text).toBe(200);
      return (r.body as { name: string }[]).map((b) => b.name).sort();
    };
    expect(await names('alice')).toEqual(['Alice double', 'Everyone']);
    expect(await names('alice', 'acme')).toEqual(['Everyone']);
    expect(await names('dave', 'acme')).toEqual(['Dave triple', 'Everyone']);
    expect(await names('dave')).toEqual(['Everyone']);
  });

  it('is read by a key bound to its tenant, never by another tenant\'s', async () => {
    const listed = async (key?: string) => {
      const r = await s.request('GET', `/admin/v1/points/${xp}/boosts?limit=100`, { key });
      expect(r.status, r.text).toBe(200);
      return (r.body as { name: string }[]).map((b) => b.name).sort();
    };
    expect(await listed()).toEqual(['Alice double', 'Dave triple', 'Everyone']);
    expect(await listed(boundKey)).toEqual(['Dave triple', 'Everyone']);
    expect((await s.request('GET', `/admin/v1/points/${xp}/boosts/${boosts['Alice double']}`, { key: boundKey })).status).toBe(404);
    expect((await s.request('GET', `/admin/v1/points/${xp}/boosts/${boosts['Dave triple']}`, { key: boundKey })).status).toBe(200);
  });
});
