/**
 * Batch events over HTTP (docs/api.md, "Batch events"): the whole batch checked before anything is
 * accepted, each refusal naming the item's index; an accepted batch stored in the batch queues and
 * event logs of its users' partitions before the 202. On single Redis and on the Redis Cluster.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkOf } from '../../src/domain/batches.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('batch events accepted on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });

  beforeAll(async () => {
    await s.metrics('lessons', 'quizzes');
    await s.attributes('user', 'plan');
    await s.attributes('event', 'device');
    await s.setClock('2026-03-10T12:00:00Z');
  });

  const post = (body: unknown) => s.request('POST', '/admin/v1/metrics/events', { body });

  /** Every chunk queued in every partition, parsed. */
  async function queued() {
    const { redis, keys } = s.api.services;
    const all = await Promise.all(Array.from({ length: keys.partitions }, (_, p) => redis.xrange(keys.partitionBatches(p).queue, '-', '+')));
    return all.flatMap((entries, p) => entries.map(([id, fields]) => ({ p, id, chunk: chunkOf(fields[1])! })));
  }

  const good = (i: number) => ({ key: 'lessons', user: { id: `u${i}` }, value: 1 });

  it('refuses a batch with any bad item, naming its index, and accepts none of it', async () => {
    const cases: [unknown[], number, string, RegExp][] = [
      [[good(0), { key: 'lessons', user: { id: 'x' } }], 400, 'invalid_body', /^Item 1: .*value is required/],
      [[good(0), good(1), { key: 'lessons', user: { id: 'x' }, value: '3' }], 400, 'invalid_body', /^Item 2: .*value must be a finite number/],
      [[{ key: 'lessons', user: {}, value: 1 }], 400, 'invalid_body', /^Item 0: .*user\.id is required/],
      [[good(0), { key: 'lessons', user: { id: '' }, value: 1 }], 400, 'invalid_body', /^Item 1: /],
      [[good(0), { key: 'lessons', user: { id: 'x' }, value: 1, idempotencyKey: 'caf\u00e9' }], 400, 'invalid_body', /^Item 1: .*idempotencyKey/],
      [[good(0), { key: 'lessons', user: { id: 'x' }, value: 1, idempotencyKey: 'k'.repeat(256) }], 400, 'invalid_body', /^Item 1: /],
      [[good(0), { key: 'lessons', user: { id: 'x' }, value: 1, tenantId: 't' }], 400, 'unknown_field', /^Item 1: .*"tenantId"/],
      [[{ key: 'lessons', user: { id: 'x', plan: 'pro' }, value: 1 }], 400, 'unknown_field', /^Item 0: .*"user\.plan"/],
      [[good(0), good(1), good(2), { key: 'nope', user: { id: 'x' }, value: 1 }], 404, 'metric_not_found', /^Item 3: Metric "nope" not found/],
      [[good(0), { key: 'lessons', user: { id: 'x', attributes: { colour: 'red' } }, value: 1 }], 422, 'invalid_attributes', /^Item 1: .*colour/],
      [[good(0), { key: 'lessons', user: { id: 'x' }, value: 1, attributes: { os: 'ios' } }], 422, 'invalid_attributes', /^Item 1: .*os/],
      [[good(0), { key: 'lessons', user: { id: 'x', tz: 'Mars/Olympus' }, value: 1 }], 422, 'invalid_timezone', /^Item 1: /],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await post(body);
      expect(r.status, r.text).toBe(status);
      expect(r.body.code, r.text).toBe(code);
      expect(r.body.error, r.text).toMatch(message);
    }
    for (const raw of ['{}', '[]', '"x"', '{"key":"lessons","user":{"id":"x"},"value":1}']) {
      const r = await s.request('POST', '/admin/v1/metrics/events', { raw });
      expect(r.status, raw).toBe(400);
      expect(r.body.code, raw).toBe('invalid_body');
    }
    const many = Array.from({ length: 1001 }, (_, i) => good(i));
    const r = await post(many);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/1 to 1000/);
    expect(await queued()).toEqual([]);
  });

  it('refuses an archived metric and keys of the wrong kind', async () => {
    const ids = await s.metrics('old');
    const patch = await s.request('PATCH', '/admin/v1/metrics', { body: [{ id: ids.old, status: 'archived' }] });
    expect(patch.status, patch.text).toBe(200);
    const r = await post([good(0), { key: 'old', user: { id: 'x' }, value: 1 }]);
    expect(r.status, r.text).toBe(422);
    expect(r.body.error).toMatch(/^Item 1: Metric "old" is archived/);
    const app = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application' } });
    expect(app.status, app.text).toBe(201);
    expect((await s.request('POST', '/admin/v1/metrics/events', { body: [good(0)], key: app.body.key })).status).toBe(403);
    expect((await s.request('POST', '/admin/v1/metrics/events', { body: [good(0)], key: null })).status).toBe(401);
    expect(await queued()).toEqual([]);
  });

  it('answers 202 once every item is in its partition\'s queue and log, in order for each user', async () => {
    const items = [
      { key: 'lessons', user: { id: 'ada', tz: 'Europe/London', attributes: { plan: 'pro' } }, value: 2, attributes: { device: 'ios' } },
      { key: 'quizzes', user: { id: 'bob' }, value: 1.5, idempotencyKey: 'k-1' },
      { key: 'lessons', user: { id: 'ada' }, value: -1 },
      ...Array.from({ length: 40 }, (_, i) => good(i)),
    ];
    const r = await post(items);
    expect(r.status, r.text).toBe(202);
    expect(r.body).toEqual({ accepted: items.length, batchId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const chunks = await queued();
    const { keys } = s.api.services;
    // Each item once, in the partition of its user, a user's items in the order sent.
    const seen = chunks.flatMap(({ p, chunk }) => chunk.i.map((item) => {
      expect(keys.partitionOf('_', item.u.id)).toBe(p);
      expect(chunk).toMatchObject({ b: r.body.batchId, t: '_', n: items.length });
      return item;
    }));
    expect(seen.map((x) => x.i).sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
    expect(seen.filter((x) => x.u.id === 'ada').map((x) => x.i)).toEqual([0, 2]);
    expect(seen.find((x) => x.i === 0)).toMatchObject({ mk: 'lessons', v: 2, a: { device: 'ios' }, u: items[0].user });
    expect(seen.find((x) => x.i === 1)).toMatchObject({ mk: 'quizzes', v: 1.5, k: 'k-1' });
    // The same chunk in the partition's event log, naming its queue entry.
    const { redis } = s.api.services;
    for (const { p, id, chunk } of chunks) {
      const log = await redis.xrange(keys.partitionLog(p), '-', '+');
      const entry = log.find(([, f]) => f[0] === 'batch' && f[3] === id);
      expect(entry, `partition ${p}`).toBeDefined();
      expect(chunkOf(entry![1][1])).toEqual(chunk);
    }
    // Its progress: nothing processed yet (no workers run here).
    const progress = await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`);
    expect(progress.status, progress.text).toBe(200);
    expect(progress.body).toEqual({ accepted: items.length, processed: 0, failed: 0, issues: [] });
    // The items waiting, and for how long, in /metrics.
    const metrics = await s.request('GET', '/metrics', { key: null });
    expect(metrics.text).toMatch(new RegExp(`^laurel_batch_items_waiting ${items.length}$`, 'm'));
    expect(Number(/^laurel_batch_lag_seconds (\S+)$/m.exec(metrics.text)?.[1])).toBeGreaterThanOrEqual(0);
  });

  it('keeps a batch to its tenant', async () => {
    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
    const r = await s.request('POST', '/admin/v1/metrics/events', { body: [good(0)], tenant: 'acme' });
    expect(r.status, r.text).toBe(202);
    expect((await queued()).find((c) => c.chunk.b === r.body.batchId)?.chunk.t).toBe(t.body.created[0].id);
    expect((await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`, { tenant: 'acme' })).status).toBe(200);
    const other = await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('not_found');
    expect((await s.request('GET', '/admin/v1/metrics/events/not-a-batch')).status).toBe(404);
  });
});

describe('batch events past the bound on what waits', () => {
  const s = useTestServer({ clock: 'manual', env: { LAUREL_BATCH_MAX_WAITING: '5' } });

  beforeAll(async () => {
    await s.metrics('lessons');
    await s.setClock('2026-03-10T12:00:00Z');
  });

  it('refuses a batch that would take the items waiting past LAUREL_BATCH_MAX_WAITING: 503, Retry-After, nothing accepted', async () => {
    const items = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ key: 'lessons', user: { id: `u${from + i}` }, value: 1 }));
    const first = await s.request('POST', '/admin/v1/metrics/events', { body: items(4, 0) });
    expect(first.status, first.text).toBe(202);
    // No workers run here: the 4 items wait, and 2 more would make 6.
    const refused = await s.request('POST', '/admin/v1/metrics/events', { body: items(2, 4) });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.code).toBe('batch_backlog_full');
    expect(refused.body.error).toMatch(/LAUREL_BATCH_MAX_WAITING/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const metrics = await s.request('GET', '/metrics', { key: null });
    expect(metrics.text).toMatch(/^laurel_batch_items_waiting 4$/m);
    // One more fits.
    const fits = await s.request('POST', '/admin/v1/metrics/events', { body: items(1, 10) });
    expect(fits.status, fits.text).toBe(202);
  });
});
