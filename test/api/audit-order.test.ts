/**
 * The audit log lists an installation's writes newest first as `npm start` runs it (one api process
 * per core), under a manual clock that stands still, after an erasure made on it: the entries of
 * one instant are ordered by their time-ordered ids, which every process makes from the machine's
 * time (src/domain/ids.ts), so an erasure's id (of the manual clock's instant, in whichever process
 * took it) does not hold that process's later entries above the others'.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView } from '../../src/model/views.js';
import { erasureDone } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const WRITES = 12;

describe('the audit log of several api processes', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual', processes: true, workers: true });
    // Years ahead of the machine's time, and standing still: every entry has this instant.
    await s.setClock('2031-03-01T10:00:00Z');
    await s.metrics('lessons');
  });
  afterAll(async () => {
    if (s === undefined) return;
    await s.close();
    await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('lists the writes newest first after an erasure made under the manual clock', { timeout: 60_000 }, async () => {
    for (const id of ['gone', 'kept']) await s.event('lessons', id, 1);
    const erase = await s.request('DELETE', '/admin/v1/users/gone');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    // One after the other, each on a connection of its own (any process), a few ms apart on the
    // machine's clock so that no two ids share a millisecond.
    for (let i = 0; i < WRITES; i++) {
      const r = await s.request('POST', '/admin/v1/metrics', { body: [{ name: `Order ${i}`, key: `order-${i}` }] });
      expect(r.status, r.text).toBe(201);
      await sleep(3);
    }
    const operation = encodeURIComponent('POST /admin/v1/metrics');
    let listed: AuditEntryView[] = [];
    await eventually(async () => {
      await s.workers!.testing.auditNow();
      const page = await s.request('GET', `/admin/v1/audit?limit=100&operation=${operation}`);
      expect(page.status, page.text).toBe(200);
      listed = (page.body.entries as AuditEntryView[]).filter((e) => JSON.stringify(e.body).includes('Order '));
      expect(listed).toHaveLength(WRITES);
    });
    expect(new Set(listed.map((e) => e.at)).size).toBe(1);
    expect(listed.map((e) => (e.body as { name: string }[])[0].name)).toEqual(
      Array.from({ length: WRITES }, (_, i) => `Order ${WRITES - 1 - i}`),
    );
  });
});
