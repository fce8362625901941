/**
 * An anniversary achievement whose years change looks at every user again, even when the edit
 * comes at the very instant of the create (the manual clock here; a batch of writes in one
 * millisecond in production): the users whose next anniversary the first years set are due again,
 * and the new years complete on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

describe('an anniversary achievement edited at the instant it was created', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual', workers: true });
    await s.setClock('2026-04-03T10:00:00Z');
    await s.metrics('lessons');
    await s.event('lessons', 'ann', 1);
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  /** ann's next anniversary, as the workers' passes (each second) note it. */
  const next = () => s.api!.services.redis.hget(s.api!.services.keys.forUser(DEFAULT_TENANT, 'ann').user, 'an');

  it('completes at the years it was changed to', async () => {
    await s.setClock('2026-04-07T10:00:00Z');
    const made = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Years', key: 'years', trigger: 'anniversary', anniversaryYears: 2 }] });
    expect(made.status, made.text).toBe(201);
    await s.workers!.testing.anniversariesIdle();
    // The create's look: ann's second anniversary is next.
    await expect.poll(next, { timeout: 5000 }).toBe('2028-04-03');

    const edited = await s.request('PATCH', '/admin/v1/achievements', { body: [{ id: made.body.created[0].id, anniversaryYears: 1 }] });
    expect(edited.body.updated, edited.text).toHaveLength(1);
    await s.workers!.testing.anniversariesIdle();
    await expect.poll(next, { timeout: 5000 }).toBe('2027-04-03');

    await s.setClock('2027-04-03T00:00:00Z');
    // Completed, and none is left to come.
    await expect.poll(next, { timeout: 5000 }).toBe('~');
    const mine = await s.request('GET', '/api/users/ann/achievements');
    expect(mine.body).toEqual([expect.objectContaining({ key: 'years', anniversaryYears: 1, achievedAt: '2027-04-03T00:00:00.000Z' })]);
  });
});
