/**
 * The fuzz suite: every operation of the real server's `/openapi.json`, requests
 * generated with fast-check (seeded, bounded) from each operation's own description: path
 * parameters, query parameters and bodies from their schemas, mixed with hostile ones (any JSON,
 * unknown fields, wrong types, deep nesting, long and odd strings, invalid JSON and UTF-8, other
 * content types), under every kind of key (the account's, one bound to a tenant, an application
 * key, a user's, none, garbage) and Tenant-ID. Then every query parameter and every path parameter
 * of every operation, one at a time beside valid values of the others, with each hostile value of
 * test/support/fuzz-values.ts (dates of year 0, 10000 and before 1970, ranges of the whole
 * calendar, NaN, Infinity, 1e309, -0, huge integers, empty, repeated, escapes that are no text);
 * and messages on `/v1/live` (hostile JSON, hundreds of topics, binary frames, bad `since`).
 * Whatever comes: never a 5xx, never a hang (each request bounded), and the server healthy after:
 * it runs as `laurel api` (test/support/api-processes.ts), so a request that sends an api process
 * into a loop cannot stop the suite, and each api process is checked after (the same processes,
 * at rest over an idle second, their peak memory bounded, `/ready`). It prints what it tried.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { calendarDate, encode, goodFor, HOSTILE_DATES, HOSTILE_SEGMENTS, hostileFor, isDate, liveMessage, RAW_ESCAPES, type Schema } from '../support/fuzz-values.js';
import { liveUrl, openLive, refusal, type LiveClient } from '../support/live-client.js';
import { descendants, idleUse, killAll, running, sample, type ProcessSample } from '../support/process-stats.js';

interface Param {
  name: string;
  schema: Schema;
  deprecated: boolean;
}

interface Operation {
  method: string;
  path: string;
  /** The server prefix the document gives the path ('' for the root). */
  prefix: string;
  params: Param[];
  query: Param[];
  body: Schema | null;
  keyed: boolean;
}

/** The seed: a failure is replayed with the same requests. */
const SEED = 34;
/** Requests per operation (two prefixes of the Application API split them). */
const RUNS = 30;
/** A request that takes longer than this has hung. */
const REQUEST_TIMEOUT_MS = 5_000;
/** Requests in flight at once in the parameter sweeps. */
const IN_FLIGHT = 8;
/** Messages each live socket is sent. */
const LIVE_MESSAGES = 150;
/** An api process at rest uses a few ms of CPU a second; one in a loop, the whole second. */
const IDLE_CPU_MS = 250;
/** Past this an api process's memory ran away (one grows to about 150 MiB here). */
const PEAK_MIB = 512;

/** Runs `tasks` with at most `n` at once; after a failure, starts no more and fails with it once those in flight settled. */
async function inFlight(tasks: (() => Promise<void>)[], n: number): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < tasks.length && errors.length === 0) {
      const task = tasks[next++];
      await task().catch((err: unknown) => { errors.push(err); });
    }
  }));
  if (errors.length > 0) throw errors[0];
}

describe('the fuzz suite over /openapi.json and /v1/live', () => {
  let s: TestServer;
  let ops: Operation[] = [];
  /** The api processes of `laurel api`, and what each used before the fuzz. */
  let pids: number[] = [];
  let before: (ProcessSample | null)[] = [];
  /** Values that exist, so that some requests get past the 404s. */
  const known: Record<string, string[]> = { key: ['lessons', 'xp', 'top', 'first'], id: ['fuzz-user'], systemId: [], deliveryId: ['nope'], token: ['x.y'] };
  const keys: Record<string, string | null> = {};
  const statuses = new Map<number, number>();
  const byOperation = new Map<string, Set<number>>();
  let requests = 0;
  /** The query and path parameters the sweeps sent hostile values in, by `<operation> <name>`, and how many were refused as such. */
  const swept = new Set<string>();
  let refusedAsInvalid = 0;
  let liveSent = 0;
  const liveAnswers = new Map<string, number>();

  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual', processes: true });
    pids = descendants(s.processes!.run.child.pid!);
    expect(pids.length).toBeGreaterThan(0);
    await s.setClock('2026-06-01T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }],
        levels: [{ name: 'Bronze', key: 'bronze', points: 20 }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const made = await Promise.all([
      s.request('POST', '/admin/v1/achievements', { body: [{ name: 'First', key: 'first', trigger: 'metric', metricId: lessons, metricValue: 1 }] }),
      s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Top', key: 'top', rankBy: 'metric', metricId: lessons, maxParticipants: 10, status: 'active' }] }),
      s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] }),
      s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Hook', url: 'https://example.com/hook', events: ['streak.lost'], status: 'inactive' }] }),
    ]);
    for (const r of made) expect(r.status, r.text).toBe(201);
    const [achievement, board, tenant, webhook] = made.map((r) => r.body.created[0].id as string);
    known.id.push(lessons, xp.body.created[0].id, achievement, board, tenant, webhook);
    known.systemId.push(xp.body.created[0].id);
    expect((await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'fuzz-user', email: 'f@example.com' }, value: 2 } })).status).toBe(201);
    const bound = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: 'acme' } });
    const app = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application' } });
    const user = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'fuzz-user' }] });
    Object.assign(keys, {
      admin: s.adminKey, bound: bound.body.key, application: app.body.key, user: user.body.created[0].key, none: null,
      garbage: 'lrl_adm_000000000000.nope', userShaped: `lrl_usr_${'0'.repeat(32)}.x`,
    });

    const doc = (await s.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: unknown[]; parameters?: { in?: string; name?: string; schema?: Schema; deprecated?: boolean }[];
        requestBody?: { content: Record<string, { schema: Schema }> } }> & { servers?: { url: string }[] }>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const op = item[method];
        if (op === undefined) continue;
        const content = op.requestBody?.content;
        const parameters = (where: string) => (op.parameters ?? []).filter((p) => p.in === where)
          .map((p) => ({ name: p.name!, schema: p.schema ?? {}, deprecated: p.deprecated === true }));
        const inPath = parameters('path');
        for (const server of item.servers ?? [{ url: '' }]) {
          ops.push({
            method: method.toUpperCase(), path, prefix: server.url,
            // In the path's order, each with its schema ("a string" where the document says no more).
            params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => inPath.find((p) => p.name === m[1]) ?? { name: m[1], schema: { type: 'string' }, deprecated: false }),
            query: parameters('query'),
            body: content === undefined ? null : (content['application/json'] ?? Object.values(content)[0]).schema,
            keyed: !(Array.isArray(op.security) && op.security.length === 0),
          });
        }
      }
    }
    before = pids.map(sample);
  }, 90_000);

  afterAll(async () => {
    // An api process in a loop would not hear SIGTERM: kill them first, then stop the primary.
    killAll(pids);
    await s?.close();
  });

  /**
   * Sends one request and answers its status; fails on a 5xx or no answer within
   * REQUEST_TIMEOUT_MS. `target` is the path and query as sent.
   */
  const send = async (op: Operation, target: string, o: { key?: string; tenant?: string; body?: string | Uint8Array; contentType?: string; idempotencyKey?: string } = {}) => {
    const url = s.url + op.prefix + target;
    const headers: Record<string, string> = {};
    const key = keys[o.key ?? 'admin'];
    if (key !== null && key !== undefined) headers['x-api-key'] = key;
    if (o.tenant !== undefined) headers['tenant-id'] = o.tenant;
    if (o.contentType !== undefined && o.body !== undefined) headers['content-type'] = o.contentType;
    if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
    const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
    let status: number;
    let text: string;
    try {
      const res = await fetch(url, { method: op.method, headers, body: hasBody ? o.body : undefined, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      status = res.status;
      text = await res.text();
    } catch (err) {
      throw new Error(`${op.method} ${url}: no answer within ${REQUEST_TIMEOUT_MS} ms or connection lost (${(err as Error).message})`);
    }
    requests++;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const name = `${op.method} ${op.prefix}${op.path}`;
    if (!byOperation.has(name)) byOperation.set(name, new Set());
    byOperation.get(name)!.add(status);
    expect(status, `${op.method} ${url} (${o.key ?? 'admin'} key): ${text.slice(0, 300)}`).toBeLessThan(500);
    return { status, text };
  };

  /** A value of a schema, from its own constraints, the known values, and odd ones beside them. */
  const fromSchema = (schema: Schema, name: string, depth = 0): fc.Arbitrary<unknown> => {
    const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (options !== undefined) return fc.oneof(...options.map((o) => fromSchema(o, name, depth)));
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
    if (types.length > 1) return fc.oneof(...types.map((t) => fromSchema({ ...schema, type: t }, name, depth)));
    switch (types[0]) {
      case 'object': {
        const props = (schema.properties ?? {}) as Record<string, Schema>;
        if (depth > 4 || Object.keys(props).length === 0) {
          return fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxKeys: 3 });
        }
        const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, k, depth + 1)]));
        return fc.record(model, { requiredKeys: ((schema.required ?? []) as string[]).filter((k) => k in model) });
      }
      case 'array': {
        const max = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, 3);
        const min = Math.min(typeof schema.minItems === 'number' ? schema.minItems : 0, max);
        return fc.array(fromSchema((schema.items ?? {}) as Schema, name, depth + 1), { minLength: min, maxLength: max });
      }
      case 'integer': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : -5;
        return fc.integer({ min, max: typeof schema.maximum === 'number' ? Math.min(schema.maximum, Number.MAX_SAFE_INTEGER) : Math.max(min, 1000) });
      }
      case 'number':
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), fc.constantFrom(0, 1, 2.5, -1));
      case 'boolean':
        return fc.boolean();
      case 'string':
        if (isDate(schema)) {
          return fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom('2026-06-01', '2026-05-20', '2026-06-02') },
            { weight: 1, arbitrary: calendarDate },
            { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_DATES) },
          );
        }
        return fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...known.id, ...known.key, 'fuzz-user', '2026-06-02', '2026-06-02T00:00:00Z', 'a@example.com', 'acme') },
          { weight: 2, arbitrary: fc.string({ minLength: typeof schema.minLength === 'number' ? schema.minLength : 0, maxLength: 24 }) },
          { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
          { weight: 1, arbitrary: fc.constantFrom('', ' ', '\u0000', '\ud800', 'é', '%', 'x'.repeat(300), '../..', '{{ user.name }}', '<script>') },
        );
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  };

  /** A body with a value nested `n` levels deep beside its fields and its object fields' fields, as JSON. */
  const withDeep = (v: unknown, n: number): string => {
    const deep = `${'{"d":'.repeat(n)}1${'}'.repeat(n)}`;
    const put = (o: unknown): string => {
      if (o === null || typeof o !== 'object') return JSON.stringify(o);
      if (Array.isArray(o)) return `[${o.map(put).join(',')}]`;
      const fields = Object.entries(o).map(([k, x]) => `${JSON.stringify(k)}:${x !== null && typeof x === 'object' && !Array.isArray(x) ? put(x) : JSON.stringify(x)}`);
      return `{${[...fields, `"deepField":${deep}`].join(',')}}`;
    };
    return put(v);
  };

  /** Bodies: the schema's, mutated, or anything at all. */
  const bodyOf = (op: Operation): fc.Arbitrary<string | Uint8Array | undefined> => {
    const schemaBody = op.body === null ? fc.constant(undefined) : fromSchema(op.body, '');
    const text = schemaBody.map((v) => (v === undefined ? undefined : JSON.stringify(v)));
    return fc.oneof(
      { weight: 5, arbitrary: text },
      // An unknown field beside the schema's.
      { weight: 1, arbitrary: schemaBody.map((v) => JSON.stringify(v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...v, unknownField: 1 } : [v, { unknownField: 1 }])) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
      { weight: 1, arbitrary: fc.integer({ min: 30, max: 3000 }).map((n) => '{"a":['.repeat(n) + ']}'.repeat(n)) },
      // Deep nesting inside an otherwise valid body: beside the top level's fields and each object field's.
      { weight: 1, arbitrary: fc.tuple(schemaBody, fc.integer({ min: 30, max: 5000 })).map(([v, n]) => withDeep(v, n)) },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => Uint8Array.from([0x7b, 0x22, 0xff, ...b])) },
    );
  };

  /** A path parameter: a known value, one of its schema, or anything (percent-encoded, or raw bytes of broken encoding). */
  const paramOf = (p: Param): fc.Arbitrary<string> => fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(known[p.name] ?? known.id)).map(encode) },
    { weight: 1, arbitrary: fromSchema(p.schema, p.name).map((v) => encode(String(v))) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  );

  /** A query parameter's value: its schema's, or a hostile one (of its kind first). */
  const valueOf = (q: Param): fc.Arbitrary<string> => fc.oneof(
    { weight: 4, arbitrary: fromSchema(q.schema, q.name).map((v) => (Array.isArray(v) ? v.join(',') : String(v))) },
    { weight: 1, arbitrary: fc.constantFrom(...hostileFor(q.schema)) },
  );

  /** A query: 0 to 4 pairs (a parameter twice now and then), encoded, or now and then raw bytes that are no text. */
  const queryOf = (op: Operation): fc.Arbitrary<string> => fc.tuple(fc.array(
    fc.oneof(
      { weight: 3, arbitrary: op.query.length === 0 ? fc.constant(['limit', '1'] as [string, string])
        : fc.constantFrom(...op.query).chain((q) => valueOf(q).map((v) => [q.name, v] as [string, string])) },
      // A parameter the operation does not list (ignored), with anything.
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('other', 'Limit', 'key[]'), fc.string({ maxLength: 20 })) },
    ),
    { maxLength: 4 },
  ), fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...RAW_ESCAPES) })).map(([pairs, raw]) => {
    const all = pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`);
    if (raw !== null) all.push(`${op.query[0]?.name ?? 'x'}=${raw}`);
    return all.length === 0 ? '' : `?${all.join('&')}`;
  });

  const requestOf = (op: Operation) => fc.record({
    params: fc.tuple(...op.params.map(paramOf)),
    query: queryOf(op),
    body: bodyOf(op),
    key: fc.oneof(
      { weight: 12, arbitrary: fc.constant('admin') },
      { weight: 4, arbitrary: fc.constantFrom('bound', 'application', 'user') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'garbage', 'userShaped') },
    ),
    tenant: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constantFrom('acme', 'nope', 'ac me', 'x'.repeat(300)) }),
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constant('application/json') },
      { weight: 1, arbitrary: fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json') },
    ),
    idempotencyKey: fc.constantFrom(undefined, undefined, 'k-1', 'x'.repeat(300)),
  });

  /** The operation's path with `values` (encoded) in its parameters. */
  const pathWith = (op: Operation, values: string[]): string => {
    let path = op.path;
    op.params.forEach((p, i) => { path = path.replace(`{${p.name}}`, values[i]); });
    return path;
  };

  it('answers every operation without a 5xx or a hang', async () => {
    expect(ops.length).toBeGreaterThan(100);
    let index = 0;
    for (const op of ops) {
      index++;
      await fc.assert(fc.asyncProperty(requestOf(op), async (r) => {
        await send(op, pathWith(op, r.params) + r.query, r);
      }), { seed: SEED + index, numRuns: RUNS, endOnFailure: true });
    }
    const reached = [...byOperation.values()].filter((set) => [...set].some((x) => x < 300)).length;
    // The generated requests get past the checks often enough to reach the handlers.
    expect(reached).toBeGreaterThan(ops.length / 2);
  }, 180_000);

  it('answers every query and path parameter of every operation, each with every hostile value, without a 5xx or a hang', async () => {
    const tasks: (() => Promise<void>)[] = [];
    for (const op of ops) {
      const name = `${op.method} ${op.prefix}${op.path}`;
      const goodPath = op.params.map((p) => encode((known[p.name] ?? known.id)[0] ?? 'x'));
      // Valid values of the others (the spec's spellings kept out: `startDate` would be read before `start_date`).
      const good = op.query.filter((q) => !q.deprecated).map((q) => [q.name, goodFor(q.schema, q.name === 'ids' ? ['nope'] : known[q.name] ?? known.id)] as const);
      const query = (pairs: (readonly [string, string])[], extra: string[] = []) =>
        `?${[...pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`), ...extra].join('&')}`;
      const refused = (r: { status: number; text: string }) => {
        if ((r.status === 400 || r.status === 422) && r.text.includes('"invalid_query"')) refusedAsInvalid++;
      };
      for (const q of op.query) {
        swept.add(`${name} ?${q.name}`);
        const others = good.filter(([k]) => k !== q.name);
        for (const v of hostileFor(q.schema)) tasks.push(async () => refused(await send(op, pathWith(op, goodPath) + query([...others, [q.name, v]]))));
        for (const raw of RAW_ESCAPES) tasks.push(async () => refused(await send(op, pathWith(op, goodPath) + query(others, [`${q.name}=${raw}`]))));
        // Given twice, and given empty.
        tasks.push(async () => refused(await send(op, pathWith(op, goodPath) + query([...others, [q.name, goodFor(q.schema, known.id)], [q.name, goodFor(q.schema, known.id)]]))));
        tasks.push(async () => refused(await send(op, pathWith(op, goodPath) + query([...others, [q.name, '']]))));
      }
      // Ranges of every size: each pair of date parameters across the calendar's edges and past them.
      const dates = op.query.filter((q) => isDate(q.schema) && !q.deprecated);
      for (let i = 0; i + 1 < dates.length; i++) {
        for (const [a, b] of [['1970-01-01', '9999-12-31'], ['0000-01-01', '0000-01-01'], ['9999-12-31', '9999-12-31'], ['9999-01-01', '9999-12-31'], ['9999-12-31', '1970-01-01'], ['0000-01-01', '10000-01-01']]) {
          const others = good.filter(([k]) => k !== dates[i].name && k !== dates[i + 1].name);
          tasks.push(async () => refused(await send(op, pathWith(op, goodPath) + query([...others, [dates[i].name, a], [dates[i + 1].name, b]]))));
        }
      }
      op.params.forEach((p, i) => {
        swept.add(`${name} {${p.name}}`);
        const edges = typeof p.schema.maxLength === 'number' ? ['a'.repeat(p.schema.maxLength), 'a'.repeat(p.schema.maxLength + 1)] : [];
        for (const v of new Set([...HOSTILE_SEGMENTS, ...edges])) {
          const values = goodPath.map((g, j) => (j === i ? v : g));
          tasks.push(async () => { await send(op, pathWith(op, values) + query(good)); });
        }
      });
    }
    await inFlight(tasks, IN_FLIGHT);
    const inQuery = ops.reduce((n, op) => n + op.query.length, 0);
    const inPath = ops.reduce((n, op) => n + op.params.length, 0);
    expect(swept.size).toBe(new Set(ops.flatMap((op) => [...op.query.map((q) => `${op.method} ${op.prefix}${op.path} ?${q.name}`), ...op.params.map((p) => `${op.method} ${op.prefix}${op.path} {${p.name}}`)])).size);
    expect(inQuery).toBeGreaterThan(50);
    expect(inPath).toBeGreaterThan(50);
    // The hostile values reach the checks: most are refused as malformed queries.
    expect(refusedAsInvalid).toBeGreaterThan(inQuery * 10);
  }, 240_000);

  it('answers any message on /v1/live without a 5xx, the socket and the server carrying on', async () => {
    const topics = ['user:live-user', 'user:fuzz-user', 'leaderboard:top', 'leaderboard:nope', 'user:other'];
    // Upgrades with odd keys and tenants in the query: refused with their status, never a 5xx.
    for (const query of ['key=', 'key=%00', `key=${'x'.repeat(5000)}`, 'key=a&key=b', `key=${encode(keys.admin!)}&tenant=${'t'.repeat(300)}`, 'tenant=acme', '%zz', `key=${encode(keys.user!)}&tenant=nope`]) {
      const r = await refusal(s.url, `/v1/live?${query}`);
      expect(r.status, query).not.toBe(0);
      expect(r.status, `${query}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
    }
    /** A socket open within REQUEST_TIMEOUT_MS (an upgrade that hangs fails the test). */
    const open = (key: string, tenant?: string): Promise<LiveClient> => Promise.race([
      openLive(liveUrl(s.url, key, tenant)),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`live: no socket within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS)),
    ]);
    // Keys of this test's own: the fuzz of the operations may have deleted or archived `acme` (it
    // names it by its customer id) or erased `fuzz-user`, and so revoked their keys.
    const event = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'live-user' }, value: 1 } });
    expect(event.status, event.text).toBe(201);
    const liveUser = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'live-user' }] });
    expect(liveUser.status, liveUser.text).toBe(201);
    const liveTenant = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'live-fuzz', name: 'Live fuzz' }] });
    expect(liveTenant.status, liveTenant.text).toBe(201);
    const liveBound = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: 'live-fuzz' } });
    expect(liveBound.status, liveBound.text).toBe(201);
    const sockets: [string, () => Promise<LiveClient>][] = [
      ['user', () => open(liveUser.body.created[0].key as string)],
      ['admin', () => open(keys.admin!)],
      ['bound', () => open(liveBound.body.key as string, 'live-fuzz')],
    ];
    let index = 0;
    for (const [who, opened] of sockets) {
      index++;
      const live = await opened();
      const messages = fc.sample(liveMessage(topics), { seed: SEED + 1000 + index, numRuns: LIVE_MESSAGES });
      for (const m of messages) live.sendRaw(m);
      liveSent += messages.length;
      // A message answered at once, after all the others: then the answers to come of the subscriptions.
      live.sendRaw(JSON.stringify({ subscribe: [`barrier-${who}`] }));
      await live.next((m) => m.code === 'invalid_body' && (m.error ?? '').includes(`barrier-${who}`), REQUEST_TIMEOUT_MS);
      for (let seen = -1; seen !== live.messages.length;) {
        seen = live.messages.length;
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const m of live.messages) {
        const kind = m.code ?? m.type ?? 'change';
        liveAnswers.set(kind, (liveAnswers.get(kind) ?? 0) + 1);
        expect(m.status ?? 0, `${who}: ${JSON.stringify(m)}`).toBeLessThan(500);
      }
      expect(live.socket.readyState, `${who}: the socket closed`).toBe(live.socket.OPEN);
      await live.close();
    }
    // More than a message may hold (64 KiB): uWebSockets.js drops the connection, the server carries on.
    const big = await open(keys.admin!);
    big.sendRaw(JSON.stringify({ subscribe: Array.from({ length: 20_000 }, (_, i) => `user:u${i}`) }));
    expect([1006, 1009]).toContain((await big.closed).code);
    expect(liveAnswers.get('subscribed') ?? 0).toBeGreaterThan(0);
    expect(liveAnswers.get('invalid_body') ?? 0).toBeGreaterThan(LIVE_MESSAGES);
  }, 60_000);

  it('leaves each api process running, at rest and ready, its memory bounded', async () => {
    // The same processes (one that died would have been started again under another pid).
    expect(descendants(s.processes!.run.child.pid!).sort()).toEqual([...pids].sort());
    const idle = await idleUse(pids, 1000);
    const use = idle.map(({ pid, cpuMs, after }, i) => ({
      pid, running: running(pid), fuzzCpuS: after && before[i] ? Math.round((after.cpuMs - before[i]!.cpuMs - cpuMs) / 100) / 10 : null,
      idleCpuMs: Math.round(cpuMs), rssMiB: Math.round(after?.rssMiB ?? 0), peakMiB: Math.round(after?.peakMiB ?? 0),
    }));
    const params = ops.reduce((n, op) => n + op.query.length + op.params.length, 0);
    console.log(`fuzz: ${ops.length} operations (with their prefixes), ${params} query and path parameters, ${requests} requests, `
      + `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}, `
      + `${[...byOperation.values()].filter((set) => [...set].some((x) => x < 300)).length} operations answered a 2xx at least once, `
      + `${refusedAsInvalid} hostile parameters refused as invalid_query; `
      + `live: ${liveSent} messages, answers ${JSON.stringify(Object.fromEntries(liveAnswers))}; `
      + `api processes: ${JSON.stringify(use)}`);
    const ready = await fetch(`${s.url}/ready`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch((err: Error) => err);
    expect(ready instanceof Error ? ready.message : ready.status).toBe(200);
    for (const u of use) {
      expect(u.running, `api process ${u.pid}`).toBe(true);
      expect(u.idleCpuMs, `api process ${u.pid}: CPU over an idle second`).toBeLessThan(IDLE_CPU_MS);
      expect(u.peakMiB, `api process ${u.pid}: peak memory`).toBeLessThan(PEAK_MIB);
    }
  });
});
