/**
 * The largest points total (docs/api.md, "Points"): 2^53 - 1, the largest integer a JSON number
 * carries exactly. An event whose metric trigger would take a total past it is refused with 422
 * `points_out_of_range` and changes nothing (its metric total neither); a system's own
 * `maxPoints` below it still cuts awards silently. On Redis and on the Cluster.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const MAX = Number.MAX_SAFE_INTEGER;

describe.each(targets())('points totals at 2^53 - 1 on %s', (target) => {
  const s = useTestServer({ target });

  beforeAll(async () => {
    const { coins } = await s.metrics('coins');
    const r = await s.request('POST', '/admin/v1/points', { body: [
      { name: 'Gold', key: 'gold', triggers: [{ type: 'metric', metricId: coins, metricThreshold: 1, points: 1, status: 'active' }] },
      { name: 'Silver', key: 'silver', maxPoints: 1000, triggers: [{ type: 'metric', metricId: coins, metricThreshold: 1, points: 1, status: 'active' }] },
    ] });
    expect(r.status, r.text).toBe(201);
  });

  const total = async (user: string, system: string) => (await s.request('GET', `/v1/users/${user}/points/${system}`)).body.total as number;
  const metric = async (user: string) => (await s.request('GET', `/v1/users/${user}/metrics/coins`)).body.current as number;

  it('takes a total up to 2^53 - 1 and refuses, changing nothing, an event that would pass it', async () => {
    const first = await s.request('POST', '/v1/metrics/coins/event', { body: { user: { id: 'rich' }, value: MAX - 1 } });
    expect(first.status, first.text).toBe(201);
    expect(first.body.points.gold).toMatchObject({ total: MAX - 1, added: MAX - 1 });
    const last = await s.request('POST', '/v1/metrics/coins/event', { body: { user: { id: 'rich' }, value: 1 } });
    expect(last.status, last.text).toBe(201);
    expect(last.body.points.gold).toMatchObject({ total: MAX, added: 1 });
    const over = await s.request('POST', '/v1/metrics/coins/event', { body: { user: { id: 'rich' }, value: 1 } });
    expect(over.status, over.text).toBe(422);
    expect(over.body).toEqual({ error: expect.stringContaining('"gold"'), code: 'points_out_of_range' });
    expect(await total('rich', 'gold')).toBe(MAX);
    expect(await total('rich', 'silver')).toBe(1000);
    expect(await metric('rich')).toBe(MAX);
    // A fall is taken (the total moves away from the edge), and so is a rise back to it.
    const down = await s.request('POST', '/v1/metrics/coins/event', { body: { user: { id: 'rich' }, value: -5 } });
    expect(down.status, down.text).toBe(201);
  });

  it('refuses an event whose award alone would pass 2^53 - 1 for a new user too', async () => {
    const r = await s.request('POST', '/v1/metrics/coins/event', { body: { user: { id: 'whale' }, value: 2 ** 60 } });
    expect(r.status, r.text).toBe(422);
    expect(r.body.code).toBe('points_out_of_range');
    expect((await s.request('GET', '/v1/users/whale/metrics/coins')).status).not.toBe(500);
    expect(await s.request('GET', '/v1/users/whale/points/gold').then((x) => x.status)).not.toBe(500);
  });
});
