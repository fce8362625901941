/**
 * The audit log keeps no secret of a URL (docs/api.md, "Audit log"), as a property through the real
 * server and workers: URLs carrying secrets in every form the URL parser takes
 * (test/support/secret-urls.ts) placed in Admin API writes, accepted and refused alike: a webhook's
 * `url`, the branding's `appUrl`, `logo` and `appIcon`, and, in a body sent to any Admin write of
 * `/openapi.json`, any field at any depth, an array's item or a field's name. Read back from
 * `GET /admin/v1/audit` and from the table the workers copy the entries into (`laurel_audit`), the
 * entries hold none of the secrets, and each URL's host and path segments stay readable.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView } from '../../src/model/views.js';
import { secretUrl, type SecretUrl } from '../support/secret-urls.js';
import { deletePostgresRows, MISSING, startTestServer, type TestServer } from '../support/server.js';

const WRITES = ['post', 'put', 'patch', 'delete'];

/** Field names whose value the audit log redacts whole (src/domain/audit.ts): kept out of the generated bodies. */
const SECRET_NAME = /secret|passw|token|credential|private|api_?key|authorization|smtp|__proto__/i;

/** A write as sent, the route as the audit log names it, and the URLs its body holds. */
interface Write {
  method: string;
  path: string;
  operation: string;
  body: unknown;
  urls: SecretUrl[];
}

/** Where a URL goes in a body: which of its objects and arrays (by index), under which field name, or as the name itself. */
interface Placement {
  url: SecretUrl;
  at: number;
  field: string;
  asName: boolean;
}

/** Every object and array of a JSON value, outermost first. */
function containers(value: unknown): (unknown[] | Record<string, unknown>)[] {
  if (value === null || typeof value !== 'object') return [];
  const inner = Array.isArray(value) ? value : Object.values(value);
  return [value as unknown[] | Record<string, unknown>, ...inner.flatMap(containers)];
}

/** `tree` (a primitive under a field of an object) with each URL placed in it. */
function place(tree: unknown, placements: Placement[]): unknown {
  const body: unknown = tree !== null && typeof tree === 'object' ? structuredClone(tree) : { value: tree };
  placements.forEach((p, i) => {
    const all = containers(body);
    const c = all[p.at % all.length];
    if (Array.isArray(c)) c.splice(p.at % (c.length + 1), 0, p.url.text);
    else if (p.asName) c[p.url.text] = i;
    else c[`${p.field}${i}`] = p.url.text;
  });
  return body;
}

describe('the audit log and the secrets of URLs', () => {
  let s: TestServer;
  let pool: pg.Pool;
  let ops: string[] = [];
  let me: { id: string; key: string };
  beforeAll(async () => {
    s = await startTestServer({ workers: true });
    pool = new pg.Pool({ connectionString: s.settings.databaseUrl, max: 2 });
    const doc = await s.request('GET', '/openapi.json');
    for (const [path, item] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of WRITES) if (path.startsWith('/admin/') && item[method] !== undefined) ops.push(`${method.toUpperCase()} ${path}`);
    }
    const made = await s.request('POST', '/admin/v1/api-keys', { body: [{ name: 'prober', kind: 'admin' }] });
    expect(made.status, made.text).toBe(201);
    me = made.body.created[0] as { id: string; key: string };
  });
  afterAll(async () => {
    await pool?.end();
    if (s === undefined) return;
    await s.close();
    await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('keeps none of the secrets of URLs in any field of any Admin write, and their host and path readable', { timeout: 300_000 }, async () => {
    expect(ops.length).toBeGreaterThan(40);
    const field = fc.oneof(fc.constantFrom('url', 'appUrl', 'href', 'callback', 'name', 'reason', 'description'), fc.string({ maxLength: 12 }))
      .filter((name) => !SECRET_NAME.test(name));
    const placement = fc.record({ url: secretUrl, at: fc.nat(), field, asName: fc.boolean() });
    const write: fc.Arbitrary<Write> = fc.oneof(
      secretUrl.map((u) => ({
        method: 'POST', path: '/admin/v1/webhooks', operation: 'POST /admin/v1/webhooks',
        body: [{ name: 'Hook', url: u.text, events: ['achievement.completed'] }], urls: [u],
      })),
      secretUrl.map((u) => ({
        method: 'PATCH', path: '/admin/v1/settings', operation: 'PATCH /admin/v1/settings', body: { branding: { appUrl: u.text } }, urls: [u],
      })),
      fc.tuple(secretUrl, secretUrl).map(([a, b]) => ({
        method: 'PATCH', path: '/admin/v1/settings', operation: 'PATCH /admin/v1/settings',
        body: { branding: { logo: { url: a.text }, appIcon: { url: b.text } } }, urls: [a, b],
      })),
      fc.record({
        op: fc.constantFrom(...ops),
        tree: fc.jsonValue({ maxDepth: 3 }).filter((tree) => !SECRET_NAME.test(JSON.stringify(tree))),
        placements: fc.array(placement, { minLength: 1, maxLength: 3 }),
      }).map(({ op, tree, placements }) => {
        const [method, path] = op.split(' ');
        return { method, path: path.replace(/\{[^}]+\}/g, MISSING), operation: op, body: place(tree, placements), urls: placements.map((p) => p.url) };
      }),
    );
    const seen = new Set<string>();
    await fc.assert(fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 3 }), async (writes) => {
      for (const w of writes) {
        const r = await fetch(s.url + w.path, {
          method: w.method, headers: { 'x-api-key': me.key, 'content-type': 'application/json' }, body: JSON.stringify(w.body),
        });
        expect(r.status, `${w.method} ${w.path}: ${await r.text()}`).toBeLessThan(500);
      }
      await s.api.audit.settle();
      await s.workers!.testing.auditNow();
      const page = await s.request('GET', `/admin/v1/audit?keyId=${me.id}&limit=100`);
      expect(page.status, page.text).toBe(200);
      const entries = (page.body.entries as AuditEntryView[]).filter((e) => !seen.has(e.id));
      for (const e of entries) seen.add(e.id);
      expect(entries.map((e) => e.operation).sort()).toEqual(writes.map((w) => w.operation).sort());
      const { rows } = await pool.query<{ body: string }>(
        'SELECT body::text AS body FROM laurel_audit WHERE prefix = $1 AND id = ANY($2)', [s.prefix, entries.map((e) => e.id)],
      );
      expect(rows).toHaveLength(writes.length);
      const kept = { 'GET /admin/v1/audit': JSON.stringify(entries.map((e) => e.body)), laurel_audit: rows.map((r) => r.body).join('\n') };
      for (const [where, text] of Object.entries(kept)) {
        for (const u of writes.flatMap((w) => w.urls)) {
          for (const secret of u.secrets) expect(text, `${where} keeps ${secret} of ${JSON.stringify(u.text)}`).not.toContain(secret);
          for (const part of u.readable) expect(text, `${where} lost ${part} of ${JSON.stringify(u.text)}`).toContain(part);
        }
      }
    }), { numRuns: 100 });
  });
});
