/**
 * An Admin write that takes no body refuses one (docs/api.md, "Strict input") before it changes
 * anything: ending an exclusion, revoking a completion, erasing a user (which cannot be undone),
 * and deleting configuration by `ids`. A field is 400 `unknown_field`, a body that is no JSON
 * 400 `malformed_json`; no body, or `{}`, is the call as documented.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

describe('an Admin write that takes no body', () => {
  let s: TestServer;
  let metricId: string;
  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual' });
    await s.setClock('2026-06-02T10:00:00Z');
    ({ lessons: metricId } = await s.metrics('lessons'));
    const ach = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'First', key: 'first', trigger: 'metric', metricId, metricValue: 1 }],
    });
    expect(ach.status, ach.text).toBe(201);
    await s.event('lessons', 'ann', 1);
    const excluded = await s.request('PUT', '/admin/v1/users/ann/exclusion', { body: { reason: 'farming' } });
    expect(excluded.status, excluded.text).toBe(200);
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  /** The call with a field, and with a body that is no JSON object: both refused. */
  const refusedWithBodies = async (method: string, path: string) => {
    const field = await s.request(method, path, { body: { reason: 'x' } });
    expect([field.status, field.body.code], field.text).toEqual([400, 'unknown_field']);
    const garbage = await s.request(method, path, { raw: 'garbage' });
    expect([garbage.status, garbage.body.code], garbage.text).toEqual([400, 'malformed_json']);
  };

  it('refuses a body, and changes nothing', async () => {
    await refusedWithBodies('DELETE', '/admin/v1/users/ann/exclusion');
    expect((await s.request('GET', '/admin/v1/users/ann/exclusion')).body.excluded).toBe(true);
    await refusedWithBodies('DELETE', '/admin/v1/users/ann/achievements/first');
    await refusedWithBodies('DELETE', '/admin/v1/users/ann');
    await refusedWithBodies('DELETE', `/admin/v1/metrics?ids=${metricId}`);
    const user = await s.request('GET', '/api/users/ann/achievements');
    expect(user.status, user.text).toBe(200);
    expect(user.body.map((a: { key: string }) => a.key)).toEqual(['first']);
    expect((await s.request('GET', `/admin/v1/metrics/${metricId}`)).status).toBe(200);
  });

  it('does what it says with no body, or {}', async () => {
    const included = await s.request('DELETE', '/admin/v1/users/ann/exclusion', { body: {} });
    expect([included.status, included.body.excluded], included.text).toEqual([200, false]);
    const revoked = await s.request('DELETE', '/admin/v1/users/ann/achievements/first');
    expect(revoked.status, revoked.text).toBe(200);
    const erased = await s.request('DELETE', '/admin/v1/users/ann');
    expect(erased.status, erased.text).toBe(202);
  });
});
