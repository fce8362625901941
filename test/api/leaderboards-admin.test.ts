/**
 * Admin API for leaderboards (trophy-admin 1.21.1): creation with defaults, metric and points
 * system by key, the checks as per-item issues, the state table row by row with the manual
 * clock, what can change once a board left `inactive`, the weekly default start, list/get/delete.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, storedConfig } from '../support/admin.js';
import { MISSING, UUID } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const s = useTestServer({ clock: 'manual' });
let metricIds: Record<string, string>;
let attr: Record<string, string>;
let xpId: string;

/** A Saturday. */
const NOW = '2024-06-15T12:00:00.000Z';
let seq = 0;
/** A fresh key per board, so the tests do not collide. */
const key = (base: string) => `${base}-${++seq}`;

/** Creates one board and returns its view. */
const create = (item: Record<string, unknown>) => adminCreateOne(s, '/admin/v1/leaderboards', item);

/** The message of the one issue a creation of one item raises (nothing is created). */
async function createIssue(item: Record<string, unknown>): Promise<string> {
  const r = await s.request('POST', '/admin/v1/leaderboards', { body: [item] });
  expect(r.status, r.text).toBe(200);
  expect(r.body.created).toEqual([]);
  expect(r.body.issues).toHaveLength(1);
  expect(r.body.issues[0]).toMatchObject({ index: 0, severity: 'error' });
  return r.body.issues[0].message;
}

/** PATCHes one board; the updated view, or the issue's message. */
async function patch(changes: Record<string, unknown>): Promise<{ view?: any; issue?: string }> {
  const r = await s.request('PATCH', '/admin/v1/leaderboards', { body: [changes] });
  expect(r.status, r.text).toBe(200);
  if (r.body.issues.length > 0) {
    expect(r.body.updated).toEqual([]);
    expect(r.body.issues[0]).toMatchObject({ id: changes.id, severity: 'error' });
    return { issue: r.body.issues[0].message };
  }
  return { view: r.body.updated[0] };
}

async function get(id: string): Promise<any> {
  const r = await s.request('GET', `/admin/v1/leaderboards/${id}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** Stored boards, parsed, straight from Redis. */
const stored = () => storedConfig(s, 'leaderboards');

beforeAll(async () => {
  await s.setClock(NOW);
  metricIds = await s.metrics('lessons', 'minutes');
  attr = { ...await s.attributes('user', 'plan', 'country'), ...await s.attributes('event', 'source') };
  const p = await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp' }] });
  expect(p.status, p.text).toBe(201);
  xpId = p.body.created[0].id;
});

describe('creating leaderboards', () => {
  it('creates with defaults: inactive, 1000 participants (null: uncapped), starting today, no end, window or runs', async () => {
    await s.setClock(NOW);
    const r = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Lessons', key: 'lessons-board', rankBy: 'metric', metricId: metricIds.lessons },
        { name: 'Streaks', key: 'streak-board', rankBy: 'streak', maxParticipants: null },
      ],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.issues).toEqual([]);
    // What a board does not have is left out (AdminLeaderboard has it optional, never null).
    expect(r.body.created).toStrictEqual([
      {
        id: UUID, name: 'Lessons', key: 'lessons-board', status: 'inactive', rankBy: 'metric',
        metricId: metricIds.lessons, maxParticipants: 1000, start: '2024-06-15', breakdownAttributes: [],
      },
      {
        id: UUID, name: 'Streaks', key: 'streak-board', status: 'inactive', rankBy: 'streak',
        maxParticipants: null, start: '2024-06-15', breakdownAttributes: [],
      },
    ]);
    // Stored with the admin status and the timestamps; the view leaves those out.
    const lessons = (await stored()).find((b) => b.key === 'lessons-board');
    expect(lessons).toMatchObject({ status: 'inactive', pointsSystemId: null, created: '2024-06-15T12:00:00.000Z' });
  });

  it('takes every field, and the metric, points system and breakdown attributes by key', async () => {
    await s.setClock(NOW);
    const full = await create({
      name: 'Monthly XP', key: key('monthly-xp'), description: 'Top earners', rankBy: 'points', pointsSystemKey: 'xp',
      maxParticipants: 50, start: '2024-07-01', end: '2024-12-31', startTime: '09:00', endTime: '17:30:00',
      breakdownAttributes: [attr.plan, attr.country], runUnit: 'month', runInterval: 1,
    });
    expect(full).toStrictEqual({
      id: UUID, name: 'Monthly XP', key: full.key, description: 'Top earners', status: 'inactive', rankBy: 'points',
      pointsSystemId: xpId, maxParticipants: 50, start: '2024-07-01', breakdownAttributes: [attr.plan, attr.country],
      end: '2024-12-31', startTime: '09:00', endTime: '17:30:00', runUnit: 'month', runInterval: 1,
    });
    const byKey = await create({ name: 'Minutes', key: key('minutes'), rankBy: 'metric', metricKey: 'minutes' });
    expect(byKey.metricId).toBe(metricIds.minutes);
    expect(byKey).not.toHaveProperty('pointsSystemId');
    expect(await createIssue({ name: 'X', key: key('x'), rankBy: 'metric', metricKey: 'nope' }))
      .toBe('metricKey "nope" is not the key of a metric');
    expect(await createIssue({ name: 'X', key: key('x'), rankBy: 'points', pointsSystemKey: 'nope' }))
      .toBe('pointsSystemKey "nope" is not the key of a points system');
    // Breakdown attributes by key as well as by id, stored and answered as ids.
    const grouped = await create({ name: 'Grouped', key: key('grouped'), rankBy: 'metric', metricKey: 'minutes', breakdownAttributes: ['plan', attr.country] });
    expect(grouped.breakdownAttributes).toEqual([attr.plan, attr.country]);
    expect(await createIssue({ name: 'X', key: key('x'), rankBy: 'streak', breakdownAttributes: [attr.plan, 'plan'] }))
      .toBe(`breakdownAttributes: "${attr.plan}" is listed twice`);
    // An event attribute's key names no user attribute.
    expect(await createIssue({ name: 'X', key: key('x'), rankBy: 'streak', breakdownAttributes: ['source'] }))
      .toBe('breakdownAttributes: "source" is not the id or key of a user attribute');
  });

  it('refuses each unsound item as an issue, storing nothing of it', async () => {
    await s.setClock(NOW);
    const before = (await stored()).length;
    const base = { name: 'Bad', rankBy: 'streak' };
    const items: [Record<string, unknown>, string | RegExp][] = [
      [{ ...base, rankBy: 'metric' }, 'metricId (or metricKey) is required for a metric leaderboard'],
      [{ ...base, rankBy: 'metric', metricId: MISSING }, `metricId must be the id of a metric (got "${MISSING}")`],
      [{ ...base, rankBy: 'points' }, 'pointsSystemId (or pointsSystemKey) is required for a points leaderboard'],
      [{ ...base, rankBy: 'points', pointsSystemId: MISSING }, `pointsSystemId must be the id of a points system (got "${MISSING}")`],
      [{ ...base, rankBy: 'points', pointsSystemId: xpId, metricId: metricIds.lessons }, 'metricId applies to metric leaderboards only'],
      [{ ...base, metricKey: 'lessons' }, 'metricId applies to metric leaderboards only'],
      [{ ...base, rankBy: 'metric', metricId: metricIds.lessons, pointsSystemId: xpId }, 'pointsSystemId applies to points leaderboards only'],
      [{ ...base, runUnit: 'day', runInterval: 7 }, 'streak leaderboards can only be perpetual: runUnit must be null'],
      [{ ...base, rankBy: 'metric', metricId: metricIds.lessons, runUnit: 'month' }, 'runInterval is required with runUnit'],
      [{ ...base, rankBy: 'metric', metricId: metricIds.lessons, runInterval: 2 }, 'runInterval needs a runUnit'],
      [{ ...base, start: '2024-06-10', end: '2024-06-09' }, 'end (2024-06-09) must not be before start (2024-06-10)'],
      [{ ...base, start: '2024-02-30' }, 'start must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "2024-02-30")'],
      [{ ...base, end: '2024-13-01' }, 'end must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "2024-13-01")'],
      // Before the epoch laurel counts days from (a year before 100 would read as 19xx).
      [{ ...base, start: '0001-01-01' }, 'start must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "0001-01-01")'],
      [{ ...base, start: '1969-12-31' }, 'start must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "1969-12-31")'],
      [{ ...base, breakdownAttributes: [attr.source] }, `breakdownAttributes: "${attr.source}" is not the id or key of a user attribute`],
      [{ ...base, breakdownAttributes: [MISSING] }, `breakdownAttributes: "${MISSING}" is not the id or key of a user attribute`],
      [{ ...base, breakdownAttributes: [attr.plan, attr.plan] }, `breakdownAttributes: "${attr.plan}" is listed twice`],
      [{ ...base, maxParticipants: 1001 }, /maxParticipants/],
      [{ ...base, maxParticipants: 0 }, /maxParticipants/],
      [{ ...base, startTime: '24:00' }, /startTime/],
      [{ ...base, rankBy: 'level' }, /rankBy must be one of/],
      [{ ...base, status: 'paused' }, /status must be one of/],
      [{ name: 'Bad' }, /rankBy is required/],
      [{ ...base, key: 'no spaces' }, /key/],
      [{ ...base, key: 'x'.repeat(101) }, /key/],
      [{ ...base, name: '' }, /name/],
    ];
    const r = await s.request('POST', '/admin/v1/leaderboards', {
      body: items.map(([item], i) => ({ key: `bad-${i}`, ...item })),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.created).toEqual([]);
    expect(r.body.issues).toEqual(items.map(([, message], index) => ({
      index, severity: 'error', message: typeof message === 'string' ? message : expect.stringMatching(message),
    })));
    expect((await stored()).length).toBe(before);
  });

  it('refuses a duplicate key, on creation and on update', async () => {
    await s.setClock(NOW);
    const k = key('dup');
    const first = await create({ name: 'One', key: k, rankBy: 'streak' });
    const r = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Two', key: k, rankBy: 'streak' }, { name: 'Three', key: `${k}-b`, rankBy: 'streak' }],
    });
    expect(r.status).toBe(201);
    expect(r.body.created.map((b: any) => b.key)).toEqual([`${k}-b`]);
    expect(r.body.issues).toEqual([{ index: 0, severity: 'error', message: `A leaderboard with key "${k}" already exists` }]);
    const other = r.body.created[0];
    expect(await patch({ id: other.id, key: k })).toEqual({ issue: `A leaderboard with key "${k}" already exists` });
    expect((await get(first.id)).name).toBe('One');
  });

  it('starts a weekly board on the next Monday by default', async () => {
    await s.setClock(NOW); // a Saturday
    const weekly = await create({ name: 'Weekly', key: key('weekly'), rankBy: 'metric', metricKey: 'lessons', runUnit: 'day', runInterval: 7 });
    expect(weekly).toMatchObject({ start: '2024-06-17', runUnit: 'day', runInterval: 7 });
    // Other repeats start today; an explicit start wins.
    expect((await create({ name: 'Daily', key: key('daily'), rankBy: 'metric', metricKey: 'lessons', runUnit: 'day', runInterval: 1 })).start)
      .toBe('2024-06-15');
    expect((await create({
      name: 'Weekly', key: key('weekly'), rankBy: 'metric', metricKey: 'lessons', runUnit: 'day', runInterval: 7, start: '2024-06-19',
    })).start).toBe('2024-06-19');
    // On a Monday, that Monday.
    await s.setClock('2024-06-17T23:00:00.000Z');
    expect(await create({
      name: 'Weekly', key: key('weekly'), rankBy: 'metric', metricKey: 'lessons', runUnit: 'day', runInterval: 7, status: 'active',
    })).toMatchObject({ start: '2024-06-17', status: 'active' });
    // A weekly board created on a weekday other than Monday starts in the future: active is refused.
    await s.setClock(NOW);
    expect(await createIssue({ name: 'Weekly', key: key('weekly'), rankBy: 'metric', metricKey: 'lessons', runUnit: 'day', runInterval: 7, status: 'active' }))
      .toBe('a leaderboard with a future start date cannot be made active directly; set status scheduled');
  });
});

describe('the state table', () => {
  it('creation: inactive; made active with no future start: active', async () => {
    await s.setClock(NOW);
    const lb = await create({ name: 'Board', key: key('board'), rankBy: 'metric', metricId: metricIds.lessons, start: '2024-06-10' });
    expect(lb.status).toBe('inactive');
    const { view } = await patch({ id: lb.id, status: 'active' });
    expect(view).toMatchObject({ id: lb.id, status: 'active', start: '2024-06-10' });
    expect((await get(lb.id)).status).toBe('active');
    // Created active directly, starting today.
    expect((await create({ name: 'Now', key: key('now'), rankBy: 'streak', status: 'active' })).status).toBe('active');
    // Back to inactive is allowed.
    expect((await patch({ id: lb.id, status: 'inactive' })).view.status).toBe('inactive');
  });

  it('a future start: active refused, scheduled accepted, active once the start date comes', async () => {
    await s.setClock(NOW);
    expect(await createIssue({ name: 'Later', key: key('later'), rankBy: 'streak', start: '2024-06-20', status: 'active' }))
      .toBe('a leaderboard with a future start date cannot be made active directly; set status scheduled');
    const lb = await create({ name: 'Later', key: key('later'), rankBy: 'streak', start: '2024-06-20' });
    expect(await patch({ id: lb.id, status: 'active' }))
      .toEqual({ issue: 'a leaderboard with a future start date cannot be made active directly; set status scheduled' });
    expect((await get(lb.id)).status).toBe('inactive');
    expect((await patch({ id: lb.id, status: 'scheduled' })).view.status).toBe('scheduled');
    const created = await create({ name: 'Later', key: key('later'), rankBy: 'streak', start: '2024-06-20', status: 'scheduled' });
    expect(created.status).toBe('scheduled');
    // The day before the start, still scheduled; on the start date (UTC), active.
    await s.setClock('2024-06-19T23:59:59.000Z');
    expect((await get(lb.id)).status).toBe('scheduled');
    await s.setClock('2024-06-20T00:00:00.000Z');
    expect((await get(lb.id)).status).toBe('active');
    expect((await get(created.id)).status).toBe('active');
    // The stored admin status stays what was set.
    expect((await stored()).find((b) => b.id === lb.id).status).toBe('scheduled');
    // Other changes still go through once it runs.
    expect((await patch({ id: lb.id, name: 'Renamed' })).view).toMatchObject({ name: 'Renamed', status: 'active' });
  });

  it('scheduled is refused unless the start date is in the future', async () => {
    await s.setClock(NOW);
    const message = 'status scheduled needs a start date in the future (start is 2024-06-15, today is 2024-06-15); set status active';
    expect(await createIssue({ name: 'Now', key: key('now'), rankBy: 'streak', status: 'scheduled' })).toBe(message);
    const lb = await create({ name: 'Now', key: key('now'), rankBy: 'streak' });
    expect(await patch({ id: lb.id, status: 'scheduled' })).toEqual({ issue: message });
    // Setting the future start in the same change is fine.
    expect((await patch({ id: lb.id, status: 'scheduled', start: '2024-07-01' })).view).toMatchObject({ status: 'scheduled', start: '2024-07-01' });
    // Moving an active board's start into the future is refused like making it active.
    const running = await create({ name: 'Running', key: key('running'), rankBy: 'streak', status: 'active' });
    expect(await patch({ id: running.id, start: '2024-07-01' }))
      .toEqual({ issue: 'a leaderboard with a future start date cannot be made active directly; set status scheduled' });
  });

  it('finishes 36 hours after the end date began in UTC', async () => {
    await s.setClock(NOW);
    const lb = await create({ name: 'June', key: key('june'), rankBy: 'streak', start: '2024-06-01', end: '2024-06-20', status: 'active' });
    expect(lb.status).toBe('active');
    await s.setClock('2024-06-21T11:59:59.999Z');
    expect((await get(lb.id)).status).toBe('active');
    await s.setClock('2024-06-21T12:00:00.000Z');
    expect((await get(lb.id)).status).toBe('finished');
    // Past its end, it cannot be brought back by moving or clearing the end, or by a status.
    expect(await patch({ id: lb.id, end: null })).toEqual({ issue: 'a finished leaderboard cannot become active again' });
    expect(await patch({ id: lb.id, end: '2024-06-30' })).toEqual({ issue: 'a finished leaderboard cannot become active again' });
    expect(await patch({ id: lb.id, status: 'inactive' })).toEqual({ issue: 'a finished leaderboard cannot become inactive again' });
    expect((await patch({ id: lb.id, description: 'Done' })).view).toMatchObject({ description: 'Done', status: 'finished' });
    expect((await patch({ id: lb.id, status: 'finished' })).view.status).toBe('finished');
  });

  it('keeps a finished board\'s end: its last runs stay readable, winners and all', async () => {
    await s.setClock('2024-06-12T12:00:00.000Z');
    const ids = await s.metrics('ended');
    const lb = await create({
      name: 'Ended', key: key('ended'), rankBy: 'metric', metricId: ids.ended, start: '2024-06-10', end: '2024-06-12', status: 'active',
      runUnit: 'day', runInterval: 1,
    });
    expect((await s.request('POST', '/api/metrics/ended/event', { body: { user: { id: 'ended-1', tz: 'UTC' }, value: 4 } })).status).toBe(201);
    await s.setClock('2024-06-13T12:00:00.000Z');
    expect((await get(lb.id)).status).toBe('finished');
    const issue = 'end cannot change once the leaderboard has finished (its runs up to 2024-06-12 are final)';
    expect(await patch({ id: lb.id, end: '2024-06-11' })).toEqual({ issue });
    expect(await patch({ id: lb.id, end: '2024-06-10', status: 'finished' })).toEqual({ issue });
    const last = await s.request('GET', `/v1/leaderboards/${lb.key}?run=2024-06-12`);
    expect(last.status, last.text).toBe(200);
    expect(last.body).toMatchObject({ end: '2024-06-12', runEnd: '2024-06-12', rankings: [{ userId: 'ended-1', rank: 1, value: 4 }] });
    // Finished by an admin: its end may not move either (it would cut the runs up to that day).
    await s.setClock(NOW);
    const open = await create({ name: 'Open', key: key('open'), rankBy: 'streak', start: '2024-06-01', status: 'active' });
    expect((await patch({ id: open.id, status: 'finished' })).view.status).toBe('finished');
    expect(await patch({ id: open.id, end: '2024-06-05' }))
      .toEqual({ issue: 'end cannot change once the leaderboard has finished (its runs up to 2024-06-15 are final)' });
    expect(await get(open.id)).not.toHaveProperty('end');
  });

  it('an admin may finish a board, which cannot be reactivated', async () => {
    await s.setClock(NOW);
    const lb = await create({ name: 'Ends', key: key('ends'), rankBy: 'streak', status: 'active' });
    expect((await patch({ id: lb.id, status: 'finished' })).view.status).toBe('finished');
    expect(await patch({ id: lb.id, status: 'active' })).toEqual({ issue: 'a finished leaderboard cannot become active again' });
    expect(await patch({ id: lb.id, status: 'inactive' })).toEqual({ issue: 'a finished leaderboard cannot become inactive again' });
    expect(await patch({ id: lb.id, status: 'scheduled', start: '2024-07-01' }))
      .toEqual({ issue: 'a finished leaderboard cannot become scheduled again' });
    expect((await get(lb.id)).status).toBe('finished');
    // Created finished (say, a board of the past).
    expect((await create({ name: 'Old', key: key('old'), rankBy: 'streak', start: '2024-01-01', end: '2024-01-31', status: 'finished' })).status)
      .toBe('finished');
    // Only a board of the past.
    const past = 'status finished on creation needs an end date in the past (today is 2024-06-15); create it inactive or active instead';
    expect(await createIssue({ name: 'Now', key: key('now'), rankBy: 'streak', status: 'finished' })).toBe(past);
    expect(await createIssue({ name: 'Now', key: key('now'), rankBy: 'streak', start: '2024-06-01', end: '2024-06-15', status: 'finished' })).toBe(past);
  });
});

describe('updating leaderboards', () => {
  it('changes key and ranking only while inactive', async () => {
    await s.setClock(NOW);
    const lb = await create({ name: 'Rank', key: key('rank'), rankBy: 'metric', metricId: metricIds.lessons });
    // Inactive: everything can change; a new ranking drops the old one's fields.
    const k = key('renamed');
    const { view } = await patch({ id: lb.id, key: k, rankBy: 'points', pointsSystemId: xpId });
    expect(view).toMatchObject({ key: k, rankBy: 'points', pointsSystemId: xpId });
    expect(view).not.toHaveProperty('metricId');
    expect((await stored()).find((b) => b.id === lb.id)).toMatchObject({ metricId: null, pointsSystemId: xpId });
    expect((await patch({ id: lb.id, rankBy: 'metric', metricKey: 'minutes', runUnit: 'month', runInterval: 3 })).view)
      .toMatchObject({ rankBy: 'metric', metricId: metricIds.minutes, runUnit: 'month', runInterval: 3 });
    // Fields of another ranking are refused.
    expect(await patch({ id: lb.id, pointsSystemId: xpId })).toEqual({ issue: 'pointsSystemId applies to points leaderboards only' });
    expect(await patch({ id: lb.id, rankBy: 'streak' })).toEqual({ issue: 'streak leaderboards can only be perpetual: runUnit must be null' });

    expect((await patch({ id: lb.id, status: 'active' })).view.status).toBe('active');
    const refused = (field: string) => ({ issue: `${field} can only change while the leaderboard is inactive (its status is active)` });
    expect(await patch({ id: lb.id, key: key('other') })).toEqual(refused('key'));
    expect(await patch({ id: lb.id, rankBy: 'streak', runUnit: null })).toEqual(refused('rankBy'));
    expect(await patch({ id: lb.id, metricId: metricIds.lessons })).toEqual(refused('metricId'));
    expect(await patch({ id: lb.id, runUnit: 'year' })).toEqual(refused('runUnit'));
    expect(await patch({ id: lb.id, runUnit: null })).toEqual(refused('runUnit'));
    // What the rankings are kept by (run and group) is fixed once users can be ranked, and the cap
    // may only rise: a change would hide the rankings, or leave a full ranking over its maximum.
    const kept = (field: string, by: string) => ({
      issue: `${field} can only change before the leaderboard starts (its status is active, and its rankings are kept by ${by})`,
    });
    expect(await patch({ id: lb.id, start: '2024-06-01' })).toEqual(kept('start', 'run'));
    expect(await patch({ id: lb.id, runInterval: 1 })).toEqual(kept('runInterval', 'run'));
    expect(await patch({ id: lb.id, breakdownAttributes: [attr.country] })).toEqual(kept('breakdownAttributes', 'group'));
    expect(await patch({ id: lb.id, maxParticipants: 10 }))
      .toEqual({ issue: 'maxParticipants can only rise once the leaderboard has started (its status is active; it ranks up to 1000)' });
    // The same values are no change; the rest may change any time.
    const same = await patch({
      id: lb.id, key: view.key, rankBy: 'metric', metricId: metricIds.minutes, runUnit: 'month',
      name: 'Ranked', description: 'New', maxParticipants: 1000, end: '2024-12-31', startTime: '08:00', endTime: null,
      breakdownAttributes: [], runInterval: 3, start: '2024-06-15',
    });
    expect(same.view).toStrictEqual({
      id: lb.id, name: 'Ranked', key: view.key, description: 'New', status: 'active', rankBy: 'metric', metricId: metricIds.minutes,
      maxParticipants: 1000, start: '2024-06-15', breakdownAttributes: [], end: '2024-12-31', startTime: '08:00',
      runUnit: 'month', runInterval: 3,
    });
    // Still checked on the resulting board.
    expect(await patch({ id: lb.id, end: '2024-06-01' })).toEqual({ issue: 'end (2024-06-01) must not be before start (2024-06-15)' });
    // Made inactive again, what it ranks and keeps its rankings by stays (the next test), its key may change.
    expect((await patch({ id: lb.id, status: 'inactive', rankBy: 'streak' })).issue).toMatch(/rankBy can only change/);
    await patch({ id: lb.id, status: 'inactive' });
    expect((await patch({ id: lb.id, breakdownAttributes: [attr.source] })).issue)
      .toBe(`breakdownAttributes: "${attr.source}" is not the id or key of a user attribute`);
    expect((await patch({ id: lb.id, rankBy: 'streak', runUnit: null })).issue).toMatch(/^rankBy cannot change: the leaderboard has been active/);
    const renamed = key('renamed-again');
    expect((await patch({ id: lb.id, key: renamed })).view).toMatchObject({ key: renamed, status: 'inactive' });
  });

  it('keeps what a started board ranks by: a scheduled board may move, a started one may only raise its cap', async () => {
    await s.setClock(NOW);
    const later = await create({
      name: 'Later', key: key('later'), rankBy: 'metric', metricId: metricIds.lessons, start: '2024-07-01', runUnit: 'day', runInterval: 1,
      status: 'scheduled',
    });
    expect((await patch({ id: later.id, start: '2024-07-08', runInterval: 7, maxParticipants: 5 })).view)
      .toMatchObject({ start: '2024-07-08', runInterval: 7, maxParticipants: 5, status: 'scheduled' });
    const lb = await create({ name: 'Cap', key: key('cap'), rankBy: 'metric', metricId: metricIds.lessons, maxParticipants: 10, status: 'active' });
    expect((await patch({ id: lb.id, maxParticipants: 20 })).view.maxParticipants).toBe(20);
    expect((await patch({ id: lb.id, maxParticipants: 19 })).issue).toMatch(/^maxParticipants can only rise .* it ranks up to 20\)$/);
    // Finished (by the admin or by its end), its rankings stay as they were.
    expect((await patch({ id: lb.id, status: 'finished' })).view.status).toBe('finished');
    expect((await patch({ id: lb.id, start: '2024-06-01' })).issue).toMatch(/^start can only change before the leaderboard starts \(its status is finished/);
    // null is uncapped: a rise, and none back.
    expect((await patch({ id: lb.id, maxParticipants: null })).view.maxParticipants).toBeNull();
    expect((await patch({ id: lb.id, maxParticipants: 1000 })).issue).toMatch(/^maxParticipants can only rise .* it ranks every participant, uncapped\)$/);
  });

  it('keeps what a board ranks by once it has been active, also when it is made inactive again', async () => {
    await s.setClock(NOW);
    const lb = await create({
      name: 'Paused', key: key('paused'), rankBy: 'metric', metricId: metricIds.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1,
      status: 'active',
    });
    expect((await patch({ id: lb.id, status: 'inactive' })).view.status).toBe('inactive');
    for (const [change, issue] of [
      [{ metricId: metricIds.minutes }, /^metricId cannot change: the leaderboard has been active/],
      [{ rankBy: 'points', pointsSystemId: xpId }, /^rankBy cannot change: the leaderboard has been active/],
      [{ runUnit: 'month' }, /^runUnit cannot change: the leaderboard has been active/],
      [{ runInterval: 2 }, /^runInterval can only change before the leaderboard starts \(it has been active, and its rankings are kept by run\)$/],
      [{ start: '2024-06-20' }, /^start can only change before the leaderboard starts \(it has been active/],
      [{ maxParticipants: 5 }, /^maxParticipants can only rise once the leaderboard has started \(it has been active; it ranks up to 10\)$/],
      [{ breakdownAttributes: [attr.country] }, /^breakdownAttributes can only change before the leaderboard starts \(it has been active/],
    ] as const) {
      const r = await patch({ id: lb.id, ...change });
      expect(r, JSON.stringify(change)).toEqual({ issue: expect.stringMatching(issue) });
    }
    // Its name, key and the rest may change; made active again, it ranks as before.
    expect((await patch({ id: lb.id, key: key('resumed'), name: 'Resumed', maxParticipants: 12 })).view).toMatchObject({ name: 'Resumed', maxParticipants: 12 });
    expect((await patch({ id: lb.id, status: 'active' })).view).toMatchObject({ status: 'active', metricId: metricIds.lessons, runInterval: 1 });
    // A board never active keeps every freedom while inactive.
    const fresh = await create({ name: 'Fresh', key: key('fresh'), rankBy: 'metric', metricId: metricIds.lessons });
    expect((await patch({ id: fresh.id, metricId: metricIds.minutes, start: '2024-06-20', maxParticipants: 3 })).view)
      .toMatchObject({ metricId: metricIds.minutes, start: '2024-06-20', maxParticipants: 3 });
  });

  it('clears nullable fields with null, maxParticipants to uncapped', async () => {
    await s.setClock(NOW);
    const lb = await create({
      name: 'Clear', key: key('clear'), rankBy: 'streak', description: 'd', maxParticipants: 5, end: '2024-07-01',
      startTime: '09:00', endTime: '10:00',
    });
    const { view } = await patch({ id: lb.id, description: null, maxParticipants: null, end: null, startTime: null, endTime: null });
    const cleared = ['description', 'end', 'startTime', 'endTime'];
    for (const v of [view, await get(lb.id)]) {
      expect(v.maxParticipants).toBeNull();
      expect(Object.keys(v).filter((k) => cleared.includes(k))).toEqual([]);
    }
    expect((await stored()).find((b) => b.id === lb.id)).toMatchObject({ description: null, end: null, startTime: null, endTime: null });
    expect(await patch({ id: MISSING, name: 'x' })).toEqual({ issue: `Leaderboard "${MISSING}" not found` });
  });
});

describe('listing, getting and deleting', () => {
  it('lists with limit and skip, gets by id, deletes by ids', async () => {
    await s.setClock(NOW);
    const all = await s.request('GET', '/admin/v1/leaderboards?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.length).toBe((await stored()).length);
    expect(all.body.length).toBeGreaterThan(3);
    expect(all.body[0].key).toBe('lessons-board');
    const page = await s.request('GET', '/admin/v1/leaderboards?limit=2&skip=1');
    expect(page.body).toEqual(all.body.slice(1, 3));
    expect(await get(all.body[1].id)).toEqual(all.body[1]);
    expect((await s.request('GET', `/admin/v1/leaderboards/${MISSING}`)).status).toBe(404);
    const doomed = all.body[0].id;
    const d = await s.request('DELETE', `/admin/v1/leaderboards?ids=${doomed},${MISSING}`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({
      deleted: [{ id: doomed }], issues: [{ id: MISSING, severity: 'error', message: `Leaderboard "${MISSING}" not found` }],
    });
    expect((await s.request('GET', `/admin/v1/leaderboards/${doomed}`)).status).toBe(404);
    expect((await stored()).some((b) => b.id === doomed)).toBe(false);
    // Its key is free again.
    expect((await create({ name: 'Again', key: 'lessons-board', rankBy: 'streak' })).key).toBe('lessons-board');
  });
});

describe('what boards use', () => {
  it('refuses to delete a metric or a points system a board ranks by, naming the board', async () => {
    const boards = (await s.request('GET', '/admin/v1/leaderboards?limit=100')).body as { key: string; metricId?: string; pointsSystemId?: string }[];
    const byMetric = boards.find((b) => b.metricId === metricIds.minutes) ?? boards.find((b) => b.metricId !== undefined)!;
    const metric = await s.request('DELETE', `/admin/v1/metrics?ids=${byMetric.metricId}`);
    expect(metric.body.deleted).toEqual([]);
    expect(metric.body.issues[0].message).toMatch(new RegExp(`is used by .*leaderboard "${byMetric.key}"`));
    const points = await s.request('DELETE', `/admin/v1/points?ids=${xpId}`);
    expect(points.body.deleted).toEqual([]);
    const byPoints = boards.find((b) => b.pointsSystemId === xpId)!;
    expect(points.body.issues[0].message).toMatch(new RegExp(`is used by .*leaderboard "${byPoints.key}"`));
    expect((await s.request('GET', `/admin/v1/points/${xpId}`)).status).toBe(200);
    // An unused metric goes.
    const spare = await s.metrics('spare');
    expect((await s.request('DELETE', `/admin/v1/metrics?ids=${spare.spare}`)).body.deleted).toEqual([{ id: spare.spare }]);
  });

  it('refuses to delete a user attribute a board breaks down by, naming the board', async () => {
    await s.setClock(NOW);
    const { team } = await s.attributes('user', 'team');
    const lb = await create({ name: 'Teams', key: key('teams'), rankBy: 'streak', status: 'active', breakdownAttributes: [team] });
    const d = await s.request('DELETE', `/admin/v1/attributes?ids=${team}`);
    expect(d.status, d.text).toBe(200);
    expect(d.body).toEqual({
      deleted: [], issues: [{ id: team, severity: 'error', message: `Attribute "team" is used by leaderboard "${lb.key}"; change those first` }],
    });
    expect((await s.request('GET', `/v1/leaderboards/${lb.key}?userAttributes=team:red`)).status).toBe(200);
    // Once no board uses it, it goes.
    expect((await s.request('DELETE', `/admin/v1/leaderboards?ids=${lb.id}`)).body.deleted).toEqual([{ id: lb.id }]);
    expect((await s.request('DELETE', `/admin/v1/attributes?ids=${team}`)).body.deleted).toEqual([{ id: team }]);
  });
});

describe('runs at the end of the calendar', () => {
  it('takes any runInterval: a run whose next one would start after 9999-12-31 ends on that day', async () => {
    await s.setClock(NOW);
    const ids = await s.metrics('far');
    const days = await create({
      name: 'Far', key: key('far-days'), rankBy: 'metric', metricId: ids.far, status: 'active', runUnit: 'day', runInterval: 1_000_000_000,
    });
    const years = await create({
      name: 'Far years', key: key('far-years'), rankBy: 'metric', metricId: ids.far, status: 'active', start: '2024-06-01',
      runUnit: 'year', runInterval: 8000,
    });
    const event = await s.request('POST', '/api/metrics/far/event', { body: { user: { id: 'far-1' }, value: 2 } });
    expect(event.status, event.text).toBe(201);
    expect(event.body.leaderboards[days.key]).toMatchObject({ rank: 1, end: '9999-12-31' });
    expect(event.body.leaderboards[years.key]).toMatchObject({ rank: 1, end: '9999-12-31' });
    for (const board of [days, years]) {
      for (const q of ['', '?run=9999-12-31']) {
        const r = await s.request('GET', `/v1/leaderboards/${board.key}${q}`);
        expect(r.status, r.text).toBe(200);
        expect(r.body).toMatchObject({ run: board.start, runEnd: '9999-12-31', rankings: [{ userId: 'far-1', rank: 1, value: 2 }] });
      }
    }
  });
});
