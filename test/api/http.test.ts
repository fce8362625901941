/**
 * The HTTP layer: routing, body limits, malformed input, aborted requests, operations endpoints,
 * and a property test that no input makes the server answer 5xx.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';

const s = useTestServer({ env: { BODY_LIMIT: '2kb' } });

beforeAll(async () => {
  await s.metrics('lessons');
  await s.attributes('user', 'plan');
});

/** Sends raw bytes over one TCP connection and returns what the server answered. */
function raw(port: number, chunks: string[], { end = true, waitMs = 300 } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => { out += d.toString(); });
    socket.on('error', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      if (!end) setTimeout(() => { socket.destroy(); resolve(out); }, waitMs);
    });
    setTimeout(() => { socket.destroy(); reject(new Error(`no answer; got: ${out}`)); }, 5000);
  });
}

describe('operations', () => {
  it('answers /health and /ready without a key', async () => {
    expect(await s.request('GET', '/health', { key: null })).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await s.request('GET', '/ready', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { redis: true, scripts: true, config: true } });
  });

  it('serves Prometheus metrics without a key, counting responses and events', async () => {
    const before = await s.request('GET', '/metrics', { key: null });
    expect(before.status).toBe(200);
    const count = (text: string, series: string) => Number(new RegExp(`^${series} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const h = { 'Idempotency-Key': 'metrics-1' };
    await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'prom' }, value: 1 }, headers: h });
    await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'prom' }, value: 1 }, headers: h });
    await s.request('GET', '/v1/users/nobody-here');
    const after = await fetch(`${s.url}/metrics`);
    expect(after.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await after.text();
    expect(count(text, 'laurel_events_total\\{outcome="processed"\\}') - count(before.text, 'laurel_events_total\\{outcome="processed"\\}')).toBe(1);
    expect(count(text, 'laurel_events_total\\{outcome="replayed"\\}') - count(before.text, 'laurel_events_total\\{outcome="replayed"\\}')).toBe(1);
    // By route (one label for /api and /v1) and status, in the latency histogram.
    const notFound = 'laurel_http_request_duration_seconds_count\\{route="GET /api/users/:id",status="404"\\}';
    expect(count(text, notFound) - count(before.text, notFound)).toBe(1);
    expect(count(text, 'laurel_http_request_duration_seconds_count\\{route="POST /api/metrics/:key/event",status="202"\\}')).toBeGreaterThan(0);
    expect(text).toMatch(/^laurel_config_version \d+$/m);
  });

  it('hides the clock unless LAUREL_CLOCK=manual', async () => {
    expect((await s.request('PUT', '/admin/v1/clock', { body: { now: '2026-01-01T00:00:00Z' } })).status).toBe(404);
    expect((await s.request('GET', '/admin/v1/clock')).status).toBe(404);
  });
});

describe('routing and malformed input', () => {
  it('answers unknown routes with 404 and wrong methods with 405, as JSON errors', async () => {
    const a = await s.request('GET', '/api/nothing-here');
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ error: 'No route for GET /api/nothing-here', code: 'route_not_found' });
    const b = await s.request('DELETE', '/v1/users/x');
    expect(b.status).toBe(405);
    expect(typeof b.body.error).toBe('string');
  });

  it('refuses malformed JSON, empty bodies and other media types', async () => {
    const bad = await s.request('POST', '/api/metrics/lessons/event', { raw: '{"user":' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('malformed_json');
    const empty = await s.request('POST', '/api/metrics/lessons/event', { raw: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('empty_body');
    const form = await s.request('POST', '/api/metrics/lessons/event', { raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
  });

  it('refuses a body over the limit from its Content-Length (413) before reading it', async () => {
    const r = await s.request('POST', '/api/metrics/lessons/event', { raw: JSON.stringify({ user: { id: 'x', name: 'n'.repeat(3000) }, value: 1 }) });
    expect(r.status).toBe(413);
    expect(r.body.error).toContain('2048');
  });

  it('refuses a chunked body once it grows over the limit (413)', async () => {
    const chunk = 'x'.repeat(1000);
    const reply = await raw(s.api.port, [
      'POST /api/metrics/lessons/event HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `X-API-KEY: ${s.adminKey}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ...Array.from({ length: 4 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`),
      '0\r\n\r\n',
    ]);
    expect(reply).toMatch(/^HTTP\/1.1 413/);
  });

  it('survives clients that hang up mid-body', async () => {
    for (let i = 0; i < 5; i++) {
      await raw(s.api.port, [
        'POST /api/metrics/lessons/event HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `X-API-KEY: ${s.adminKey}\r\nContent-Length: 500\r\n\r\n{"user":{"id":"half`,
      ], { end: false, waitMs: 20 });
    }
    expect((await s.request('GET', '/health')).status).toBe(200);
    expect((await s.request('GET', '/v1/users/half')).status).toBe(404);
  });
});

describe('no input makes the server answer 5xx', () => {
  const routes: [string, string][] = [
    ['POST', '/api/metrics/lessons/event'],
    ['POST', '/v1/users'],
    ['PUT', '/v1/users/fuzz'],
    ['PATCH', '/v1/users/fuzz'],
    ['PATCH', '/v1/users/fuzz/preferences'],
    ['POST', '/admin/v1/metrics'],
    ['PATCH', '/admin/v1/tenants'],
    ['POST', '/admin/v1/api-keys'],
    ['POST', '/admin/v1/application-api-keys'],
  ];

  it.each(routes)('%s %s with arbitrary JSON bodies', async (method, path) => {
    await fc.assert(fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (body) => {
      const r = await s.request(method, path, { raw: JSON.stringify(body) });
      expect(r.status).toBeGreaterThanOrEqual(200);
      expect(r.status).toBeLessThan(500);
      if (r.status >= 400) expect(typeof r.body.error).toBe('string');
    }), { numRuns: 60 });
  });

  it('event bodies with arbitrary user objects and values', async () => {
    const user = fc.record({
      id: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
      email: fc.option(fc.string()),
      tz: fc.option(fc.oneof(fc.constantFrom('Europe/Paris', 'UTC', 'Not/AZone'), fc.string())),
      subscribeToEmails: fc.option(fc.oneof(fc.boolean(), fc.string())),
      attributes: fc.option(fc.dictionary(fc.constantFrom('plan', 'other'), fc.oneof(fc.string(), fc.integer()))),
      deviceTokens: fc.option(fc.array(fc.string())),
    }, { requiredKeys: [] });
    await fc.assert(fc.asyncProperty(user, fc.oneof(fc.double(), fc.integer(), fc.string()), async (u, value) => {
      const r = await s.request('POST', '/api/metrics/lessons/event', { raw: JSON.stringify({ user: u, value }) });
      expect(r.status).toBeLessThan(500);
      expect([201, 400, 422]).toContain(r.status);
    }), { numRuns: 150 });
  });

  it('arbitrary path parameters and query strings', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 300 }), fc.string({ maxLength: 100 }), async (id, query) => {
      for (const path of [
        `/v1/users/${encodeURIComponent(id)}`,
        `/v1/users/${encodeURIComponent(id)}/metrics/lessons/event-summary?${encodeURIComponent(query)}`,
        `/v1/users/x/metrics/lessons/event-summary?aggregation=daily&startDate=${encodeURIComponent(query)}&endDate=2026-01-01`,
        `/admin/v1/metrics?limit=${encodeURIComponent(query)}`,
      ]) {
        const r = await s.request('GET', path);
        expect(r.status, path).toBeLessThan(500);
      }
    }), { numRuns: 60 });
  });
});
