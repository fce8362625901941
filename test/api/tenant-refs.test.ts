/**
 * A tenant named by its customer id wherever its id goes (docs/api.md, "Tenants and keys"): a
 * read, an update and a delete of `/admin/v1/tenants` take either, and answer the tenant's id.
 */
import { describe, expect, it } from 'vitest';
import { UUID } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe('tenants by their customer id', () => {
  const s = useTestServer();

  it('reads, updates and deletes a tenant named by its customer id, answering its id', async () => {
    const created = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(created.status, created.text).toBe(201);
    const id = created.body.created[0].id as string;
    expect(id).toEqual(UUID);

    const read = await s.request('GET', '/admin/v1/tenants/acme');
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ id, customerId: 'acme', name: 'Acme' });

    const patched = await s.request('PATCH', '/admin/v1/tenants', { body: [{ id: 'acme', name: 'Acme Inc.' }] });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ updated: [expect.objectContaining({ id, customerId: 'acme', name: 'Acme Inc.' })], issues: [] });

    // Neither an id nor a customer id: an issue naming what was sent.
    const unknown = await s.request('PATCH', '/admin/v1/tenants', { body: [{ id: 'nobody', name: 'x' }] });
    expect(unknown.body).toEqual({ updated: [], issues: [{ id: 'nobody', severity: 'error', message: 'Tenant "nobody" not found' }] });

    const deleted = await s.request('DELETE', '/admin/v1/tenants?ids=acme');
    expect(deleted.status, deleted.text).toBe(200);
    // Its erasure's id beside its own: its users are erased the way a user is (docs/api.md).
    expect(deleted.body).toEqual({ deleted: [{ id, erasureId: expect.stringMatching(/^[0-9a-f-]{36}$/) }], issues: [] });
    expect((await s.request('GET', `/admin/v1/tenants/${id}`)).status).toBe(404);
    expect((await s.request('GET', '/admin/v1/tenants/acme')).status).toBe(404);
  });

  it('refuses a customer id that is another tenant\'s id, which would name two tenants', async () => {
    const created = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'globex', name: 'Globex' }, { customerId: 'initech', name: 'Initech' }] });
    expect(created.status, created.text).toBe(201);
    const [globex, initech] = created.body.created.map((t: { id: string }) => t.id) as string[];
    const message = `customerId "${globex}" is the id of another tenant`;
    const twin = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: globex, name: 'Twin' }] });
    expect(twin.body).toEqual({ created: [], issues: [{ index: 0, severity: 'error', message }] });
    const renamed = await s.request('PATCH', '/admin/v1/tenants', { body: [{ id: initech, customerId: globex }] });
    expect(renamed.body).toEqual({ updated: [], issues: [{ id: initech, severity: 'error', message }] });
    // Both still named as before; a tenant's own id is no other's.
    expect((await s.request('GET', `/admin/v1/tenants/${globex}`)).body).toMatchObject({ customerId: 'globex', name: 'Globex' });
    const own = await s.request('PATCH', '/admin/v1/tenants', { body: [{ id: initech, customerId: initech }] });
    expect(own.body.updated[0], own.text).toMatchObject({ id: initech, customerId: initech });
  });
});
