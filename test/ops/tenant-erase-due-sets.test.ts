/**
 * A deleted tenant's users leave the partitions' due sets (the time awards' and the anniversaries',
 * src/redis/due-sets.ts), on single Redis and on the Cluster; another tenant's users stay, one
 * whose id is the deleted tenant's uuid included. Before the workers' erasure pass removes them, a
 * read of the due users skips a deleted tenant's users and takes them out.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eraseTenantData } from '../../src/engine/erasure/tenant-erase.js';
import { ANNIVERSARIES_DUE, TIME_AWARDS_DUE, dueMember } from '../../src/redis/due-sets.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('a deleted tenant\'s users in the due sets on %s', (target) => {
  let s: TestServer | null = null;
  afterAll(async () => {
    await s?.close();
  });

  it('go, and no other tenant\'s user goes with them', { timeout: 60_000 }, async () => {
    s = await startTestServer({ target });
    const svc = s.api.services;
    const [gone, kept] = [randomUUID(), randomUUID()];
    const partitions = [...new Set([0, svc.keys.partitions - 1])];
    for (const set of [TIME_AWARDS_DUE, ANNIVERSARIES_DUE]) {
      for (const p of partitions) {
        await set.add(svc, p, gone, [`ann-${p}`, `abe-${p}`], 1000);
        await set.add(svc, p, kept, [`bea-${p}`, gone], 1000);
      }
    }

    const erased = await eraseTenantData(svc, gone);

    expect(erased.members).toBe(2 * partitions.length * 2);
    for (const set of [TIME_AWARDS_DUE, ANNIVERSARIES_DUE]) {
      for (const p of partitions) {
        const members = await svc.redis.zrange(set.key(svc.keys, p), 0, -1);
        expect(members.sort()).toEqual([dueMember(kept, `bea-${p}`), dueMember(kept, gone)].sort());
      }
    }
  });

  it('are skipped and taken out by a read of the due users once the tenant is gone', { timeout: 60_000 }, async () => {
    s ??= await startTestServer({ target });
    const svc = s.api.services;
    const [gone, kept] = [randomUUID(), randomUUID()];
    const p = svc.keys.partitions - 1;
    await TIME_AWARDS_DUE.add(svc, p, gone, ['ann', 'abe'], 1000);
    await TIME_AWARDS_DUE.add(svc, p, kept, ['bea'], 2000);
    await TIME_AWARDS_DUE.add(svc, p, kept, ['cy'], 5000);

    const due = await TIME_AWARDS_DUE.due(svc, p, 3000, 100, (t) => t !== gone);
    expect(due.filter(([t]) => t === gone || t === kept)).toEqual([[kept, 'bea']]);
    const left = await svc.redis.zrange(TIME_AWARDS_DUE.key(svc.keys, p), 0, -1);
    expect(left.filter((m) => m.includes(gone) || m.includes(kept)).sort()).toEqual([dueMember(kept, 'bea'), dueMember(kept, 'cy')].sort());
  });
});
