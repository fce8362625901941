/**
 * The check of every answer against the 1.21.1 response schemas (test/support/openapi.ts) bites:
 * a known-bad body fails with the operation, the status, the path of what is wrong and the body; a
 * known-good one passes; extra fields pass; error statuses are checked too; a path the specs do
 * not describe is skipped only when test/support/spec-differences.ts lists it; the SDK's answers
 * are checked on the wire.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TrophyApiClient } from '@trophyso/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer, operationOf, type Answer } from '../support/openapi.js';
import { takeSdkViolations } from '../support/wire-check.js';

/** A user's leaderboard as 1.21.1 describes it. */
const userBoard = () => ({
  id: '01a20a9a-53f4-7067-b35c-20a695c02ffd', name: 'Lessons', key: 'lessons', status: 'active', rankBy: 'metric',
  metricKey: 'lessons', metricName: 'Lessons', description: null, breakdownAttribute: null, breakdownAttributes: [],
  start: '2026-07-01', end: null, startTime: null, endTime: null, maxParticipants: 100, runUnit: null, runInterval: null,
  rank: 1, value: 8,
  history: [{ date: '2026-07-01', timestamp: '2026-07-01T00:00:00.000Z', previousRank: null, rank: 1, previousValue: null, value: 8 }],
});
const get = (path: string, status: number, body: unknown): Answer => ({ method: 'GET', path, status, body });
const USER_BOARD = '/v1/users/ada/leaderboards/lessons';

describe('the 1.21.1 response check', () => {
  it('passes a known-good body, under /v1 and /api, extra fields and all', () => {
    expect(checkAnswer(get(USER_BOARD, 200, userBoard()))).toEqual({ kind: 'valid', operation: 'app GET /users/{id}/leaderboards/{key}' });
    expect(checkAnswer(get(`/api/users/ada/leaderboards/lessons?run=2026-07-01`, 200, userBoard())).kind).toBe('valid');
    // additionalProperties is not assumed false: laurel's own `run` and `runEnd` are fine.
    expect(checkAnswer(get(USER_BOARD, 200, { ...userBoard(), run: '2026-07-01', runEnd: null })).kind).toBe('valid');
  });

  it('fails a history entry without its date, naming the operation, the status, the path and the body', () => {
    const body = userBoard();
    const { date: _, ...old } = body.history[0];
    const v = checkAnswer(get(USER_BOARD, 200, { ...body, history: [old] }));
    expect(v.kind).toBe('invalid');
    const message = v.kind === 'invalid' ? v.message : '';
    expect(message).toContain('app GET /users/{id}/leaderboards/{key} answered 200');
    expect(message).toContain("/history/0 must have required property 'date'");
    expect(message).toContain('body: {"id":"01a20a9a');
  });

  it('checks types, nullability and formats', () => {
    const bad = (change: Record<string, unknown>) => checkAnswer(get(USER_BOARD, 200, { ...userBoard(), ...change })).kind;
    expect(bad({ rank: '1' })).toBe('invalid');
    expect(bad({ rank: null, value: null })).toBe('valid');
    expect(bad({ start: null })).toBe('invalid');
    expect(bad({ end: 'someday' })).toBe('invalid');
    expect(bad({ rankBy: 'vibes' })).toBe('invalid');
    expect(bad({ history: [{ ...userBoard().history[0], timestamp: 'today' }] })).toBe('invalid');
  });

  it('checks an error status against the spec\'s error body, listed for the operation or not', () => {
    expect(checkAnswer(get(USER_BOARD, 404, { error: 'User "ada" not found', code: 'user_not_found' })).kind).toBe('valid');
    expect(checkAnswer(get(USER_BOARD, 404, { message: 'not found' })).kind).toBe('invalid');
    // 400 is not listed for this operation: still an error body.
    expect(checkAnswer(get(USER_BOARD, 400, { error: 'numEvents must be an integer', code: 'invalid_query' })).kind).toBe('valid');
    expect(checkAnswer(get(USER_BOARD, 503, 'Service Unavailable')).kind).toBe('invalid');
    expect(checkAnswer({ method: 'DELETE', path: '/admin/v1/metrics?ids=x', status: 401, body: { error: 'no key', code: 'unauthorized' } }).kind).toBe('valid');
  });

  it('refuses a success status the spec does not list, unless a listed difference stands it for another', () => {
    const user = {
      id: 'ada', email: null, name: null, tz: null, deviceTokens: null, subscribeToEmails: true, attributes: {}, control: false,
      created: '2026-07-01T00:00:00.000Z', updated: '2026-07-01T00:00:00.000Z',
    };
    expect(checkAnswer({ method: 'GET', path: '/v1/users/ada', status: 201, body: user }).kind).toBe('invalid');
    // PUT /users/{id} answers 201 when it created the user: checked as the 200 it stands for.
    expect(checkAnswer({ method: 'PUT', path: '/v1/users/ada', status: 201, body: user }).kind).toBe('valid');
    expect(checkAnswer({ method: 'PUT', path: '/v1/users/ada', status: 201, body: { ...user, control: 'no' } }).kind).toBe('invalid');
  });

  it('excuses a listed difference only where it is listed: fractional values, not fractional ranks', () => {
    const history = (change: Record<string, unknown>) => checkAnswer(get(USER_BOARD, 200, { ...userBoard(), history: [{ ...userBoard().history[0], ...change }] })).kind;
    expect(history({ value: 8.5, previousValue: 0.5 })).toBe('valid');
    expect(history({ rank: 1.5 })).toBe('invalid');
    expect(history({ value: '8.5' })).toBe('invalid');
    expect(checkAnswer(get('/v1/leaderboards/lessons', 200, { ...userBoard(), rankings: [{ userId: 'ada', userName: null, rank: 1, value: 0.5 }] })).kind).toBe('valid');
  });

  it('skips a path the specs do not describe only when it is listed; laurel\'s "no such route" is checked', () => {
    expect(checkAnswer(get('/admin/v1/clock', 200, { now: 0 })).kind).toBe('skipped');
    // An Admin operation 1.21.1 lacks is checked against Admin 1.26.0's schema.
    const newer = checkAnswer(get('/admin/v1/streaks/settings', 200, { frequency: 'daily' }));
    expect(newer).toMatchObject({ kind: 'invalid', operation: 'admin GET /streaks/settings' });
    expect(newer.kind === 'invalid' && newer.message).toContain('outside its 1.26.0 response schema');
    expect(checkAnswer(get('/health', 200, 'ok')).kind).toBe('skipped');
    expect(checkAnswer(get('/v1/streaks/rankings?type=active', 200, [])).kind).toBe('skipped');
    const unlisted = checkAnswer(get('/v1/streaks/longest', 200, []));
    expect(unlisted.kind).toBe('invalid');
    expect(unlisted.kind === 'invalid' && unlisted.message).toContain('does not list it in SKIPPED');
    expect(checkAnswer(get('/v1/nope', 404, { error: 'Route not found', code: 'route_not_found' })).kind).toBe('valid');
    expect(checkAnswer(get('/v1/nope', 404, { code: 'route_not_found' })).kind).toBe('invalid');
  });

  it('finds the most specific operation of a path', () => {
    expect(operationOf('POST', '/admin/v1/metrics/events')?.name).toBe('admin POST /metrics/events');
    expect(operationOf('GET', '/admin/v1/metrics/events')?.name).toBe('admin GET /metrics/{id}');
    expect(operationOf('GET', '/v1/points/xp/level-summary')?.name).toBe('app GET /points/{key}/level-summary');
    expect(operationOf('GET', '/admin/v1/points/abc/levels')?.name).toBe('admin GET /points/{systemId}/levels');
    expect(operationOf('GET', '/metrics')).toBeNull();
  });
});

/**
 * The SDK's wire path: an HTTP server of this test answers what laurel answered before 1.21.1 (a
 * history without dates), which the 1.0.42 SDK accepts; the check sees it anyway.
 */
describe('the SDK\'s answers', () => {
  let server: Server;
  let url: string;
  let answer: unknown;

  beforeAll(async () => {
    server = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((resolve) => server.close(resolve)); });

  it('are checked on the wire: the SDK takes an old history, the check does not', async () => {
    const client = new TrophyApiClient({ apiKey: 'k', environment: { api: `${url}/v1`, admin: `${url}/admin/v1` } });
    const body = userBoard();
    answer = { ...body, history: body.history.map(({ date: _, ...rest }) => rest) };
    const r = await client.users.leaderboard('ada', 'lessons', {}, { maxRetries: 0 });
    expect(r.history[0].timestamp).toEqual(new Date('2026-07-01T00:00:00.000Z'));
    const seen = takeSdkViolations();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain("app GET /users/{id}/leaderboards/{key} answered 200 outside its 1.21.1 response schema (GET /v1/users/ada/leaderboards/lessons)");
    expect(seen[0]).toContain("/history/0 must have required property 'date'");
    // The same call answered as 1.21.1 says: nothing to report.
    answer = body;
    await client.users.leaderboard('ada', 'lessons', {}, { maxRetries: 0 });
    expect(takeSdkViolations()).toEqual([]);
  });
});
