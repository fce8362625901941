/**
 * `GET /openapi.json`: a well-formed OpenAPI 3.1 document (checked against the specification's
 * own schema, every schema in it compiled as JSON Schema 2020-12) that describes every route the
 * server mounts, each with its methods, its request body's schema (the very object its check was
 * compiled from) and the query parameters its handler reads; and no path the server answers is
 * missing from it, probed over HTTP.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREFIXES } from '../../src/app/api.js';
import { bodySchema, documentPath, openApiDocument } from '../../src/http/openapi.js';
import type { Route } from '../../src/http/server.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const HTTP_METHOD: Record<Route['method'], string> = { get: 'get', post: 'post', put: 'put', patch: 'patch', del: 'delete' };

type Json = Record<string, any>;

/** Each operation of a document as `METHOD /full/path/{param}`, with the path as a pattern of concrete paths. */
function operationsOf(doc: Json): { key: string; method: string; pattern: RegExp }[] {
  const out: { key: string; method: string; pattern: RegExp }[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const bases: string[] = item.servers ? item.servers.map((s: { url: string }) => s.url) : [''];
    for (const method of METHODS) {
      if (item[method] === undefined) continue;
      for (const base of bases) {
        const full = base + path;
        const pattern = new RegExp(`^${full.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
        out.push({ key: `${method.toUpperCase()} ${full}`, method, pattern });
      }
    }
  }
  return out;
}

/** The routes of `routes` that `doc` does not describe at their path and method, as `METHOD path`. */
function undescribed(doc: Json, routes: readonly Route[]): string[] {
  return routes
    .filter((r) => doc.paths[documentPath(r, PREFIXES)]?.[HTTP_METHOD[r.method]] === undefined)
    .map((r) => `${r.method.toUpperCase()} ${r.family} ${r.path}`);
}

/** The answers of `answered` that no operation of `doc` describes, and the operations no answer reached. */
function unmatched(doc: Json, answered: { method: string; path: string; status: number }[]): { missing: string[]; unreached: string[] } {
  const operations = operationsOf(doc);
  const reached = new Set<string>();
  const missing: string[] = [];
  for (const a of answered) {
    const op = operations.find((o) => o.method === a.method && o.pattern.test(a.path));
    if (op === undefined) missing.push(`${a.method.toUpperCase()} ${a.path} answered ${a.status}`);
    else reached.add(op.key);
  }
  return { missing, unreached: operations.map((o) => o.key).filter((k) => !reached.has(k)) };
}

/** Every schema object of a document: request bodies, parameters, responses and components. */
function schemasOf(doc: Json): Json[] {
  const found: Json[] = Object.values(doc.components.schemas);
  for (const item of Object.values<Json>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      for (const p of op.parameters ?? []) if (p.schema) found.push(p.schema);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) found.push(body);
      for (const r of Object.values<Json>(op.responses)) {
        for (const c of Object.values<Json>(r.content ?? {})) if (c.schema && !c.schema.$ref) found.push(c.schema);
      }
    }
  }
  return found;
}

/** Paths worth asking the server about: the SDK's, the docs', and around every path of the document. */
function candidatePaths(doc: Json): string[] {
  const concrete = (p: string) => p.replace(/\$\{[^}]+\}|\{[^}]+\}/g, 'x');
  const out = new Set<string>();
  const app = (p: string) => { for (const prefix of PREFIXES.app) out.add(`${prefix}/${p.replace(/^\//, '')}`); };
  // The SDK's calls: `.api, \`users/${id}\`` and `.admin, "streaks/freezes"`.
  const sdk = join(ROOT, 'node_modules/@trophyso/node/api/resources');
  const clients = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? clients(path) : name === 'Client.js' ? [path] : [];
  });
  for (const file of clients(sdk)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\.(api|admin), [`"]([^`"]*)[`"]/g)) {
      if (m[1] === 'api') app(concrete(m[2]));
      else out.add(`${PREFIXES.admin[0]}/${concrete(m[2])}`);
    }
  }
  // Anything in the docs that looks like a path.
  for (const file of ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/`(?:[A-Z]+ )?(\/?[a-z][A-Za-z0-9{}._/-]*\/[A-Za-z0-9{}._/-]*|\/[a-z][a-z0-9._-]*)`/g)) {
      const p = concrete(m[1]).replace(/\/$/, '');
      if (p.startsWith('/admin/') || p.startsWith('/api/') || p.startsWith('/v1/') || !p.includes('/', 1) && p.startsWith('/')) out.add(p);
      else app(p);
    }
  }
  // Each path of the document, its parents and a child below it.
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const bases: string[] = item.servers ? item.servers.map((s: { url: string }) => s.url) : [''];
    for (const base of bases) {
      const full = concrete(base + path);
      out.add(full);
      out.add(`${full}/x`);
      for (let i = full.lastIndexOf('/'); i > 0; i = full.lastIndexOf('/', i - 1)) out.add(full.slice(0, i));
    }
  }
  return [...out];
}

describe('GET /openapi.json', () => {
  let s: TestServer;
  let doc: Json;
  /** What the probe found the server answering (not route_not_found, not method_not_allowed). */
  const answered: { method: string; path: string; status: number }[] = [];

  beforeAll(async () => {
    // The manual clock mounts the clock routes' answers (without it they are 404s).
    s = await startTestServer({ clock: 'manual' });
    const res = await fetch(`${s.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    doc = await res.json() as Json;
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is served without a key, and with an invalid one', async () => {
    const r = await s.request('GET', '/openapi.json', { key: 'not-a-key' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(doc);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-KEY' });
    const ids = Object.values<Json>(doc.paths).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m].operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('holds schemas that compile as JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas = schemasOf(doc);
    expect(schemas.length).toBeGreaterThan(50);
    for (const schema of schemas) expect(() => ajv.compile(schema), JSON.stringify(schema)).not.toThrow();
  });

  it('names each path parameter of every operation once, as the path has it', () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const method of METHODS) {
        if (item[method] === undefined) continue;
        const inPath = (item[method].parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect(inPath, `${method} ${path}`).toEqual(names);
      }
    }
  });

  it('describes every route the server mounts, with its methods, and nothing else', () => {
    const routes = s.api.routes;
    expect(routes.length).toBeGreaterThan(80);
    expect(undescribed(doc, routes)).toEqual([]);
    const mounted = new Set(routes.map((r) => `${HTTP_METHOD[r.method]} ${documentPath(r, PREFIXES)}`));
    const written = Object.entries<Json>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m} ${path}`));
    expect(written.sort()).toEqual([...mounted].sort());
    // The Application API's paths, below both of its prefixes.
    for (const r of routes.filter((x) => x.family === 'app')) {
      expect(doc.paths[documentPath(r, PREFIXES)].servers.map((x: { url: string }) => x.url)).toEqual(PREFIXES.app);
    }
    expect(doc.paths['/admin/v1/metrics'].get).toBeDefined();
    expect(doc.paths['/users/{id}/metrics/{key}/event-summary'].get).toBeDefined();
  });

  it('shows each request body with the schema its check was compiled from', () => {
    let bodies = 0;
    for (const r of s.api.routes) {
      const op = doc.paths[documentPath(r, PREFIXES)][HTTP_METHOD[r.method]];
      const shown = op.requestBody?.content['application/json'].schema;
      if (r.doc.body === undefined) {
        expect(shown, `${r.method} ${r.path}`).toBeUndefined();
        continue;
      }
      bodies++;
      expect(shown, `${r.method} ${r.path}`).toEqual(JSON.parse(JSON.stringify(bodySchema(r.doc.body))));
      // The check's own schema: a batch's items, or the body itself.
      const own = r.doc.body.batch === undefined ? shown : r.doc.body.orOne ? shown.anyOf[1].items : shown.items;
      expect(own).toEqual(JSON.parse(JSON.stringify(r.doc.body.check.schema)));
    }
    expect(bodies).toBeGreaterThan(20);
    const event = doc.paths['/metrics/{key}/event'].post.requestBody.content['application/json'].schema;
    expect(event.required).toEqual(['user', 'value']);
  });

  it('lists the query parameters each route reads, and the Tenant-ID header of the tenant\'s calls', () => {
    for (const r of s.api.routes) {
      const op = doc.paths[documentPath(r, PREFIXES)][HTTP_METHOD[r.method]];
      const query = (op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
      expect(query, `${r.method} ${r.path}`).toEqual((r.doc.query ?? []).map((p) => p.name));
      const tenant = (op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/TenantId');
      expect(tenant, `${r.method} ${r.path}`).toBe(r.family === 'app' || r.doc.tenant === true);
    }
    const summary = doc.paths['/users/{id}/metrics/{key}/event-summary'].get.parameters.find((p: Json) => p.name === 'aggregation');
    expect(summary).toEqual(expect.objectContaining({ in: 'query', required: true, schema: { enum: ['daily', 'weekly', 'monthly'] } }));
  });

  it('asks for the key on every call but the operations, the links of emails and the dashboard\'s files', () => {
    expect(doc.security).toEqual([{ apiKey: [] }]);
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const method of METHODS) {
        if (item[method] === undefined) continue;
        // The operations, and the links of emails (a signed token in the path stands for the key).
        const open = ['/health', '/ready', '/metrics', '/openapi.json'].includes(path) || /^\/(preferences|unsubscribe)\/\{token\}$/.test(path)
          || /^\/dashboard(\/|$)/.test(path);
        expect(item[method].security, `${method} ${path}`).toEqual(open ? [] : undefined);
        if (!open) expect(Object.keys(item[method].responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403', '404']));
      }
    }
  });

  it('answers a malformed path with the status each operation documents for malformed input (422 where the SDK types it)', async () => {
    let probed = 0;
    for (const r of s.api.routes.filter((x) => x.path.includes('/:'))) {
      const path = `${PREFIXES[r.family][0]}${r.path.replace(/:[A-Za-z0-9_]+/, '%ZZ').replace(/:[A-Za-z0-9_]+/g, 'x')}`;
      const res = await s.request(HTTP_METHOD[r.method].toUpperCase(), path);
      const expected = r.doc.malformed ?? 400;
      expect([res.status, res.body.code], `${r.method} ${path}`).toEqual([expected, 'invalid_path']);
      expect(Object.keys(doc.paths[documentPath(r, PREFIXES)][HTTP_METHOD[r.method]].responses), `${r.method} ${path}`).toContain(String(expected));
      probed++;
    }
    expect(probed).toBeGreaterThan(40);
    const summary = doc.paths['/users/{id}/metrics/{key}/event-summary'].get.responses;
    expect(Object.keys(summary)).not.toContain('400');
    expect(summary['422'].description).toMatch(/^Malformed input/);
    expect(Object.keys(doc.paths['/users/{id}'].get.responses)).toContain('400');
  });

  it('misses no path the server answers: every method on the SDK\'s, the docs\' and the document\'s paths', async () => {
    const candidates = candidatePaths(doc);
    expect(candidates.length).toBeGreaterThan(100);
    const probes = candidates.flatMap((path) => METHODS.map((method) => ({ path, method })));
    for (let i = 0; i < probes.length; i += 25) {
      await Promise.all(probes.slice(i, i + 25).map(async ({ path, method }) => {
        // Plain fetch: most probes go where no operation of the 1.21.1 specs is, which the schema
        // check of s.request() refuses (it is the probe's point to find what answers).
        const res = await fetch(s.url + path, { method: method.toUpperCase(), headers: { 'x-api-key': s.adminKey } });
        const text = await res.text();
        const r = { status: res.status, body: (() => { try { return JSON.parse(text) as unknown; } catch { return text; } })() };
        const code = typeof r.body === 'object' && r.body !== null ? (r.body as { code?: string }).code : undefined;
        if (code !== 'route_not_found' && code !== 'method_not_allowed') answered.push({ method, path, status: r.status });
      }));
    }
    // Every answer is described; the other way round, every operation was found by the probe, and answers.
    expect(unmatched(doc, answered)).toEqual({ missing: [], unreached: [] });
  });

  it('fails a route left out (the checks can fail)', () => {
    const routes = s.api.routes;
    const lacking = structuredClone(doc);
    delete lacking.paths['/users/{id}/streak'].get;
    expect(undescribed(lacking, routes)).toEqual(['GET app /users/:id/streak']);
    expect(answered.length).toBeGreaterThan(0);
    expect(unmatched(lacking, answered).missing).toEqual(expect.arrayContaining(['GET /api/users/x/streak answered 404', 'GET /v1/users/x/streak answered 404']));
    const twice = [...routes, routes.find((r) => r.path === '/users/:id/streak')!];
    expect(() => openApiDocument(twice, { title: 't', version: '0', description: '', prefixes: PREFIXES })).toThrow(/two routes describe GET \/users\/\{id\}\/streak/);
  });
});
