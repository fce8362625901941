/**
 * Malformed input through SDK 1.0.42: each call answers the status the SDK's typed errors name for
 * it, so the SDK throws its typed error class with laurel's `{ error }` message. The SDK types 422
 * and not 400 for most Application API calls: there malformed queries, paths and bodies are 422
 * (code and message as ever); where it types 400 (users.get, users.create/identify/update,
 * metrics.event, the admin bulk calls), they stay 400. Unknown users and keys keep their 404 and
 * 401.
 *
 * Which statuses each call types is read from the SDK itself (`case 422: throw new
 * TrophyApi.UnprocessableEntityError`), and every route the SDK calls must answer malformed input
 * accordingly (its description's `malformed`, src/http/route-doc.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TrophyApi, TrophyApiClient, TrophyApiError } from '@trophyso/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCreate, createAchievements } from '../support/admin.js';
import { rejectionOf, sdkClient } from '../support/sdk.js';
import { useTestServer } from '../support/use-server.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NO_RETRY = { maxRetries: 0 };
const LONG_ID = 'x'.repeat(256);

interface SdkCall {
  name: string;
  family: 'app' | 'admin';
  method: string;
  /** As laurel's routes write it: `/users/:id/streak`. */
  path: string;
  /** The statuses the call throws a typed error for. */
  typed: number[];
}

/** Every call of the SDK, with the statuses its typed errors cover, read from its client modules. */
function sdkCalls(): SdkCall[] {
  const clients = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? clients(path) : name === 'Client.js' ? [path] : [];
  });
  const calls: SdkCall[] = [];
  for (const file of clients(join(ROOT, 'node_modules/@trophyso/node/api/resources'))) {
    const src = readFileSync(file, 'utf8');
    const starts = [...src.matchAll(/\n {4}(\w+)\([^)]*\) \{\n {8}var _a;\n {8}return __awaiter/g)];
    starts.forEach((m, i) => {
      const body = src.slice(m.index, starts[i + 1]?.index ?? src.length);
      const url = /\.(api|admin), [`"]([^`"]*)[`"]/.exec(body);
      const method = /method: "(\w+)"/.exec(body);
      if (url === null || method === null) throw new Error(`cannot read ${m[1]} in ${file}`);
      calls.push({
        name: m[1], family: url[1] === 'api' ? 'app' : 'admin', method: method[1],
        path: `/${url[2].replace(/\$\{(\w+)\}/g, ':$1')}`,
        typed: [...body.matchAll(/case (\d+):\s*throw new TrophyApi\.\w+Error/g)].map((c) => Number(c[1])),
      });
    });
  }
  return calls;
}

/** Asserts `err` is the SDK's typed 422 carrying laurel's message; returns the message. */
function unprocessable(err: unknown): string {
  expect(err, String(err)).toBeInstanceOf(TrophyApi.UnprocessableEntityError);
  const e = err as TrophyApiError;
  expect(e.statusCode).toBe(422);
  const body = e.body as { error?: unknown };
  expect(typeof body.error, JSON.stringify(body)).toBe('string');
  return body.error as string;
}

// Against the api as `npm start` runs it: the default number of api processes, each call on a
// connection of its own (startTestServer `processes`).
describe('malformed input through SDK 1.0.42', () => {
  const s = useTestServer({ clock: 'manual', processes: true });
  let client: TrophyApiClient;
  const failing = (p: Promise<unknown>) => rejectionOf(p);

  beforeAll(async () => {
    await s.setClock('2026-03-10T12:00:00Z');
    const metrics = await s.metrics('lessons');
    const attributes = await s.attributes('user', 'plan');
    const systems = [{ key: 'xp', name: 'XP', triggers: [{ type: 'metric', metricId: metrics.lessons, metricThreshold: 1, points: 10 }] }];
    await adminCreate(s, '/admin/v1/points', systems);
    const boards = [
      { name: 'Top', key: 'top', rankBy: 'metric', metricId: metrics.lessons, status: 'active', start: '2026-03-01' },
      { name: 'By plan', key: 'by-plan', rankBy: 'metric', metricId: metrics.lessons, status: 'active', start: '2026-03-01', breakdownAttributes: [attributes.plan] },
    ];
    await adminCreate(s, '/admin/v1/leaderboards', boards);
    await createAchievements(s, [{ name: 'Onboarded', key: 'onboarded', trigger: 'api' }]);
    await s.event('lessons', { id: 'ada', attributes: { plan: 'pro' } }, 1);
    client = sdkClient(s);
  });

  it('answers malformed input on each call the SDK makes with the status its typed errors name', async () => {
    const calls = sdkCalls();
    expect(calls.length).toBe(26);
    // What each operation answers, as /openapi.json documents it (from the routes' descriptions: a
    // route whose malformed input is 422 lists no 400).
    const doc = (await s.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const wrong: string[] = [];
    for (const call of calls) {
      const path = (call.family === 'admin' ? '/admin/v1' : '') + call.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[call.method.toLowerCase()];
      if (op === undefined) {
        wrong.push(`${call.name}: no operation ${call.method} ${path}`);
        continue;
      }
      // 422 where the SDK types 422 and not 400; otherwise 400 (typed, or neither typed).
      const expected = call.typed.includes(422) && !call.typed.includes(400) ? 422 : 400;
      const malformed = op.responses['400'] !== undefined ? 400 : op.responses['422'] !== undefined ? 422 : null;
      if (malformed !== expected) wrong.push(`${call.name} (${call.method} ${path}, typed ${call.typed}): malformed ${malformed}`);
    }
    expect(wrong).toEqual([]);
    // The SDK's own table, as its reference says: metricEventSummary types 401, 404 and 422.
    expect(calls.find((c) => c.name === 'metricEventSummary')?.typed).toEqual([401, 404, 422]);
  });

  it('users.metricEventSummary and users.pointsEventSummary: bad aggregation, bad and missing dates, a reversed range', async () => {
    const q = { aggregation: 'daily' as const, startDate: '2026-03-01', endDate: '2026-03-10' };
    for (const summary of [
      (r: object) => client.users.metricEventSummary('ada', 'lessons', r as typeof q, NO_RETRY),
      (r: object) => client.users.pointsEventSummary('ada', 'xp', r as typeof q, NO_RETRY),
    ]) {
      expect(unprocessable(await failing(summary({ ...q, aggregation: 'hourly' }))))
        .toBe('Invalid query parameter: aggregation must be one of daily, weekly, monthly, got "hourly"');
      expect(unprocessable(await failing(summary({ ...q, startDate: '2026-3-1' }))))
        .toBe('Invalid query parameter: startDate must be a date as YYYY-MM-DD from 1970-01-01 to 9999-12-31, got "2026-3-1"');
      expect(unprocessable(await failing(summary({ aggregation: 'daily', endDate: '2026-03-10' }))))
        .toBe('Invalid query parameter: startDate is required (YYYY-MM-DD)');
      expect(unprocessable(await failing(summary({ ...q, startDate: '2026-03-11' })))).toBe('startDate must not be after endDate');
      expect(await summary(q)).toHaveLength(10);
    }
  });

  it('users.streak, users.points, users.leaderboard, users.wrapped: out-of-range and malformed parameters', async () => {
    expect(unprocessable(await failing(client.users.streak('ada', { historyPeriods: 366 }, NO_RETRY))))
      .toBe('Invalid query parameter: historyPeriods must be an integer from 0 to 365, got "366"');
    expect(unprocessable(await failing(client.users.points('ada', 'xp', { awards: 0 }, NO_RETRY))))
      .toBe('Invalid query parameter: awards must be an integer from 1 to 100, got "0"');
    expect(unprocessable(await failing(client.users.leaderboard('ada', 'top', { run: '2026-13-01' }, NO_RETRY))))
      .toBe('Invalid query parameter: run must be a date as YYYY-MM-DD from 1970-01-01 to 9999-12-31, got "2026-13-01"');
    expect(unprocessable(await failing(client.users.leaderboard('ada', 'top', { numEvents: 101 }, NO_RETRY))))
      .toBe('Invalid query parameter: numEvents must be an integer from 0 to 100, got "101"');
    expect(unprocessable(await failing(client.users.wrapped('ada', { year: 1969 }, NO_RETRY))))
      .toBe('Invalid query parameter: year must be an integer from 1970 to 9999, got "1969"');
    expect(unprocessable(await failing(client.users.wrapped('ada', { year: 2999 }, NO_RETRY))))
      .toBe('Invalid query parameter: year must be an integer from 1970 to the current year (2026), got "2999"');
    expect(unprocessable(await failing(client.users.wrapped('ada', { year: 2.5 }, NO_RETRY))))
      .toBe('Invalid query parameter: year must be an integer from 1970 to 9999, got "2.5"');
  });

  it('streaks.list and streaks.rankings: missing and too many ids, a bad limit and type', async () => {
    expect(unprocessable(await failing(client.streaks.list({}, NO_RETRY)))).toBe('Invalid query parameter: userIds is required: one or more user ids');
    const many = Array.from({ length: 101 }, (_, i) => `u${i}`);
    expect(unprocessable(await failing(client.streaks.list({ userIds: many }, NO_RETRY))))
      .toBe('Invalid query parameter: userIds may list at most 100 items');
    expect(unprocessable(await failing(client.streaks.rankings({ limit: 0 }, NO_RETRY))))
      .toBe('Invalid query parameter: limit must be an integer from 1 to 100, got "0"');
    expect(unprocessable(await failing(client.streaks.rankings({ type: 'best' as 'active' }, NO_RETRY))))
      .toBe('Invalid query parameter: type must be one of active, longest, got "best"');
  });

  it('leaderboards.get, points.summary, achievements.all: bad offsets, limits, runs and userAttributes', async () => {
    expect(unprocessable(await failing(client.leaderboards.get('top', { offset: -1 }, NO_RETRY))))
      .toBe('Invalid query parameter: offset may be negative only with userId: it then counts from that user\'s place');
    expect(unprocessable(await failing(client.leaderboards.get('top', { offset: -9007199254740992, userId: 'u1' }, NO_RETRY))))
      .toBe('Invalid query parameter: offset must be an integer from -9007199254740991 to 9007199254740991, got "-9007199254740992"');
    expect(unprocessable(await failing(client.leaderboards.get('top', { limit: 1001 }, NO_RETRY))))
      .toBe('Invalid query parameter: limit must be an integer from 0 to 1000, got "1001"');
    expect(unprocessable(await failing(client.leaderboards.get('top', { run: 'soon' }, NO_RETRY))))
      .toBe('Invalid query parameter: run must be a date as YYYY-MM-DD from 1970-01-01 to 9999-12-31, got "soon"');
    expect(unprocessable(await failing(client.leaderboards.get('by-plan', {}, NO_RETRY))))
      .toBe('Invalid query parameter: userAttributes must give plan:<value>: leaderboard "by-plan" ranks its users by plan');
    expect((await client.leaderboards.get('by-plan', { userAttributes: 'plan:pro' }, NO_RETRY)).rankings).toHaveLength(1);
    expect(unprocessable(await failing(client.points.summary('xp', { userAttributes: 'plan' }, NO_RETRY))))
      .toBe('Invalid query parameter: userAttributes must be key:value pairs separated by commas, got "plan"');
    expect(unprocessable(await failing(client.achievements.all({ userAttributes: 'plan:pro,plan:free' }, NO_RETRY))))
      .toBe('Invalid query parameter: userAttributes gives plan twice, as "pro" and "free": every pair must match, so no user could');
  });

  it('a user id too long in the path: 422 where the SDK types 422, the typed 400 on users.get', async () => {
    const message = 'Invalid path: a user id must have 1 to 255 characters';
    // Sent together, each caught from the start (any may be answered first).
    const refusals = [
      client.users.streak(LONG_ID, {}, NO_RETRY), client.users.allMetrics(LONG_ID, NO_RETRY),
      client.users.singleMetric(LONG_ID, 'lessons', NO_RETRY), client.users.achievements(LONG_ID, {}, NO_RETRY),
      client.users.getPreferences(LONG_ID, NO_RETRY), client.users.points(LONG_ID, 'xp', {}, NO_RETRY),
      client.users.leaderboard(LONG_ID, 'top', {}, NO_RETRY), client.users.wrapped(LONG_ID, {}, NO_RETRY),
      client.users.updatePreferences(LONG_ID, { notifications: {} }, NO_RETRY),
    ].map(failing);
    for (const err of await Promise.all(refusals)) expect(unprocessable(err)).toBe(message);
    const err = await failing(client.users.get(LONG_ID, NO_RETRY));
    expect(err).toBeInstanceOf(TrophyApi.BadRequestError);
    expect((err as TrophyApiError).body).toEqual({ error: message, code: 'invalid_path' });
  });

  // users.updatePreferences cannot send a malformed body: the SDK checks its enums before sending
  // (test/api/users.test.ts sends one over HTTP).
  it('bodies: 422 on achievements.complete, the typed 400 on metrics.event', async () => {
    expect(unprocessable(await failing(client.achievements.complete('onboarded', { user: { id: LONG_ID } }, NO_RETRY))))
      .toBe('Invalid request body: user.id must NOT have more than 255 characters');
    const event = await failing(client.metrics.event('lessons', { user: { id: LONG_ID }, value: 1 }, NO_RETRY));
    expect(event).toBeInstanceOf(TrophyApi.BadRequestError);
    expect((event as TrophyApiError).body).toMatchObject({ error: 'Invalid request body: user.id must NOT have more than 255 characters' });
  });

  it('keeps 404 for an unknown user and 401 for an unknown key', async () => {
    const missing = await failing(client.users.streak('nobody', {}, NO_RETRY));
    expect(missing).toBeInstanceOf(TrophyApi.NotFoundError);
    expect((missing as TrophyApiError).body).toMatchObject({ error: 'User "nobody" not found' });
    const stranger = sdkClient(s, { apiKey: 'not-a-key' });
    expect(await failing(stranger.users.streak('ada', { historyPeriods: 366 }, NO_RETRY))).toBeInstanceOf(TrophyApi.UnauthorizedError);
  });
});
