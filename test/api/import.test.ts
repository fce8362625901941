/**
 * History import (docs/api.md, "History import"), through the real server over HTTP with the
 * manual clock, the workers in the test and a webhook receiver, on single Redis and on the
 * Cluster: a body or an item it cannot apply refused whole, nothing accepted; a year-old history
 * sent out of order (NDJSON and a JSON array) counts when each event happened (totals, summaries,
 * the streak and its history, the completion's `achievedAt`, the awards' dates), its progress
 * read, no webhook of it, sent again with its keys it applies nothing more; the board runs of its
 * dates filled and finalised again as of their ends, quietly, a league's left as they were. As a property: a
 * history imported in any order leaves a user exactly as the same events sent as they happened
 * leave another, on every board run of its days. Restored from the log alone, it comes back as it
 * was. `laurel import` sends a file's history in the order it happened, and refuses a
 * file it cannot read, sending nothing.
 */
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { adminCreateOne } from '../support/admin.js';
import { configureLessons, lessonsState, read } from '../support/lessons.js';
import { startReceiver } from '../support/receiver.js';
import { restoreServer } from '../support/restore.js';
import { uuidv7 } from '../../src/domain/ids.js';
import { forgetImports, notedImports, noteImport } from '../../src/redis/imports.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu', 'Europe/Paris', 'America/New_York', 'UTC', 'Etc/GMT+12'];
/** Every webhook type an event can call for. */
const TYPES = [
  'leaderboard.changed', 'achievement.completed', 'streak.extended', 'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned', 'points.changed', 'leaderboard.rank_changed',
  'leaderboard.finished', 'league.promoted', 'league.demoted', 'league.stayed',
];

const iso = (ms: number) => new Date(ms).toISOString();

interface Item {
  key: string;
  user: { id: string; tz?: string };
  value: number;
  occurredAt: string;
  idempotencyKey?: string;
}

describe.each(targets())('history import on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let user = 0;
  const next = () => `im${user++}`;
  const deliver = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.webhooksNow(); };

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2025-01-01T00:00:00Z');
    await configureLessons(s, '2025-01-01');
    const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'All', url: hook.url('/h'), events: TYPES }] });
    expect(w.status, w.text).toBe(201);
  });
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const post = (body: Item[] | string, contentType = 'application/json') =>
    s.request('POST', '/admin/v1/import', typeof body === 'string' ? { raw: body, headers: { 'content-type': contentType } } : { body });
  /** Imports `items` and waits until the workers have applied them: the import's progress. */
  const imported = async (body: Item[] | string, contentType?: string) => {
    const r = await post(body, contentType);
    expect(r.status, r.text).toBe(202);
    lastImport = r.body.importId as string;
    await s.workers!.testing.batchesNow();
    return read(s, `/admin/v1/import/${r.body.importId}`);
  };
  let lastImport = '';
  const hooksOf = (id: string) => hook.received.filter((r) => r.body.includes(`"${id}"`));

  it('refuses a body or an item it cannot apply, accepting nothing', async () => {
    await s.setClock('2026-06-01T12:00:00Z');
    const id = next();
    const item = (occurredAt: string, extra: Record<string, unknown> = {}) => ({ key: 'lessons', user: { id }, value: 1, occurredAt, ...extra });
    const refusals: [string, Awaited<ReturnType<typeof post>>, number, string, string][] = [
      ['empty', await post('', 'application/x-ndjson'), 400, 'invalid_body', 'the body is empty'],
      ['not JSON', await post('[{"key":', 'application/json'), 400, 'malformed_json', ''],
      ['a bad line', await post(`${JSON.stringify(item('2025-01-01T00:00:00Z'))}\n\n{"key"\n`, 'application/x-ndjson'), 400, 'malformed_json', 'Line 3:'],
      // The API's strict JSON, in a line as in an array: no U+0000, no surrogate alone, no deep nesting.
      ['a NUL in a line', await post(`${JSON.stringify(item('2025-01-01T00:00:00Z', { user: { id: 'd\u0000y' } }))}`, 'application/x-ndjson'), 400, 'malformed_json', 'Line 1:'],
      ['a lone surrogate', await post(`[${JSON.stringify(item('2025-01-01T00:00:00Z', { user: { id: 'x\ud800' } }))}]`), 400, 'malformed_json', 'unpaired surrogate'],
      ['nested too deep', await post(`${'['.repeat(40)}${']'.repeat(40)}`), 400, 'malformed_json', 'nested deeper'],
      ['before 1970', await post([item('1969-12-31T23:59:59Z')]), 422, 'occurred_at_out_of_window', 'Item 0:'],
      ['no occurredAt', await post([item('2025-01-01T00:00:00Z'), { key: 'lessons', user: { id }, value: 1 } as Item]), 400, 'invalid_body', 'Item 1:'],
      ['an unknown field', await post([item('2025-01-01T00:00:00Z', { when: 1 })]), 400, 'unknown_field', 'Item 0:'],
      ['not a time', await post([item('2025-02-30T00:00:00Z')]), 400, 'invalid_body', 'occurredAt must be an ISO 8601'],
      ['ahead', await post([item('2025-01-01T00:00:00Z'), item('2026-06-01T12:05:01Z')]), 422, 'occurred_at_out_of_window', 'Item 1:'],
      ['an unknown metric', await post([{ ...item('2025-01-01T00:00:00Z'), key: 'nope' }]), 404, 'metric_not_found', 'Item 0:'],
      ['too many', await post(Array.from({ length: 10_001 }, () => item('2025-01-01T00:00:00Z'))), 400, 'invalid_body', '1 to 10000 events'],
      ['another type', await post('a,b', 'text/csv'), 415, 'unsupported_media_type', 'text/csv'],
    ];
    // Checked only: the count, nothing accepted.
    const checked = await s.request('POST', '/admin/v1/import?check=true', { body: [item('2025-01-01T00:00:00Z'), item('2025-01-02T00:00:00Z')] });
    expect([checked.status, checked.body]).toEqual([200, { checked: 2 }]);
    for (const [what, r, status, code, message] of refusals) {
      expect([what, r.status, r.body.code], r.text).toEqual([what, status, code]);
      expect(r.body.error, what).toContain(message);
    }
    // Past the body limit (8 MiB by default): 413 before the body is read whole.
    const big = await post(`[${' '.repeat(8 * 1024 * 1024)}]`);
    expect([big.status, big.body.code]).toEqual([413, 'payload_too_large']);
    const unknown = await s.request('GET', '/admin/v1/import/0190a8c4-0000-7000-8000-000000000000');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    await s.workers!.testing.batchesNow();
    expect((await s.request('GET', `/api/users/${id}`)).status).toBe(404);
  });

  it('imports a history older than the window as it happened, out of order, telling no one; again, it applies nothing more', async () => {
    await s.setClock('2026-06-01T12:00:00Z');
    const id = next();
    // Two lessons a day in Paris from the 10th of May for ten days, but the 15th (a freeze covers
    // it); the 15th lesson on the 18th.
    const items: Item[] = [];
    for (let d = 0; d < 10; d++) {
      if (d === 5) continue;
      for (const h of [8, 19]) {
        const at = Date.UTC(2026, 4, 10 + d, h - 2);
        items.push({ key: 'lessons', user: { id, tz: 'Europe/Paris' }, value: 1, occurredAt: iso(at), idempotencyKey: `${id}-${at}` });
      }
    }
    // In two parts, the earlier first (as NDJSON, with CRLF), each in no order of its own.
    const half = items.length / 2;
    const shuffled = [...items.slice(0, half).reverse(), ...items.slice(half).reverse()];
    const ndjson = shuffled.slice(0, half).map((i) => JSON.stringify(i)).join('\r\n');
    const first = await imported(ndjson, 'application/x-ndjson');
    expect(first).toEqual({ accepted: half, processed: half, failed: 0, issues: [] });
    // The audit log names the import by its id (written after the answer: settled, then copied).
    await s.api.audit.settle();
    await s.workers!.testing.auditNow();
    const audit = (await read(s, '/admin/v1/audit?operation=POST%20/admin/v1/import&limit=100')).entries as { ids: string[] }[];
    expect(audit.some((e) => e.ids.includes(lastImport))).toBe(true);
    expect(await imported(shuffled.slice(half))).toEqual({ accepted: half, processed: half, failed: 0, issues: [] });

    expect((await read(s, `/api/users/${id}/metrics/lessons`)).current).toBe(18);
    const days = await read(s, `/api/users/${id}/metrics/lessons/event-summary?aggregation=daily&startDate=2026-05-10&endDate=2026-05-19`);
    expect(days.map((d: { date: string; change: number }) => d.change)).toEqual([2, 2, 2, 2, 2, 0, 2, 2, 2, 2]);
    const streak = await read(s, `/api/users/${id}/streak?historyPeriods=30`);
    // Lost since (days passed without a lesson and no freeze left): its history tells the ten days.
    expect(streak.length).toBe(0);
    const history = streak.streakHistory.filter((h: { length: number }) => h.length > 0);
    expect(history.map((h: { periodStart: string; length: number }) => [h.periodStart, h.length])).toEqual(
      [1, 2, 3, 4, 5, 5, 6, 7, 8, 9].map((n, d) => [`2026-05-${10 + d}`, n]),
    );
    const [fifteen] = await read(s, `/api/users/${id}/achievements`);
    expect(fifteen).toMatchObject({ key: 'fifteen', achievedAt: '2026-05-18T06:00:00.000Z' });
    const points = await read(s, `/api/users/${id}/points/xp?awards=100`);
    expect(points.total).toBe(18);
    expect(points.awards.at(-1)).toMatchObject({ date: '2026-05-10T06:00:00.000Z', awarded: 1, total: 1 });
    expect(points.awards[0]).toMatchObject({ date: '2026-05-19T17:00:00.000Z', awarded: 1, total: 18 });

    // No webhook of it; one of a live event (the receiver hears those).
    const live = next();
    for (let i = 0; i < 15; i++) await s.event('lessons', live, 1);
    await expect.poll(async () => { await deliver(); return hooksOf(live).length; }).toBeGreaterThan(0);
    expect(hooksOf(id)).toEqual([]);

    // Sent again with its keys: processed, and nothing moves.
    expect(await imported(shuffled)).toEqual({ accepted: items.length, processed: items.length, failed: 0, issues: [] });
    expect((await read(s, `/api/users/${id}/metrics/lessons`)).current).toBe(18);
    expect((await read(s, `/api/users/${id}/points/xp`)).total).toBe(18);
  });

  it('imports a file from the command line in the order it happened, and refuses one it cannot read', async () => {
    await s.setClock('2026-06-01T12:00:00Z');
    const dir = await mkdtemp(join(tmpdir(), 'laurel-import-'));
    try {
      const users = [next(), next(), next()];
      // A lesson a day for each user over the 60 days before the 25th of May, last first.
      const lines: string[] = [];
      for (let d = 59; d >= 0; d--) {
        for (const id of users) lines.push(JSON.stringify({ key: 'lessons', user: { id }, value: 1, occurredAt: iso(Date.UTC(2026, 4, 25 - d, 9)) }));
      }
      lines.reverse();
      const file = join(dir, 'history.ndjson');
      await writeFile(file, `${lines.join('\n')}\n`);
      // In parts of 50: each user's days over four imports, in order.
      const run = runCli(['import', file, '--url', s.url, '--key', s.adminKey, '--part', '50'], {});
      expect(await run.exited, run.output()).toBe(0);
      expect(run.output()).toContain(`checking 180 events from ${file} in 4 parts`);
      expect(run.output()).toContain('imported 180 events');
      for (const id of users) {
        expect((await read(s, `/api/users/${id}/metrics/lessons`)).current).toBe(60);
        // The streak of sixty days, lost since the 26th of May.
        const history = (await read(s, `/api/users/${id}/streak?historyPeriods=20`)).streakHistory;
        expect(history.find((h: { periodStart: string }) => h.periodStart === '2026-05-25')).toMatchObject({ length: 60 });
      }

      const bad = join(dir, 'bad.ndjson');
      const other = next();
      await writeFile(bad, `${JSON.stringify({ key: 'lessons', user: { id: other }, value: 1, occurredAt: '2026-05-01T00:00:00Z' })}\n{"key":\n`);
      const refused = runCli(['import', bad, '--url', s.url, '--key', s.adminKey], {});
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain('laurel import: line 2 is not valid JSON');
      expect((await s.request('GET', `/api/users/${other}`)).status).toBe(404);

      // An item the server refuses in the third part: every part is checked first, nothing applied.
      const late = join(dir, 'late.ndjson');
      const ids = Array.from({ length: 3 }, () => next());
      const rows = Array.from({ length: 30 }, (_, i) => ({ key: i === 25 ? 'nope' : 'lessons', user: { id: ids[i % 3] }, value: 1, occurredAt: iso(Date.UTC(2026, 3, 1 + i, 9)) }));
      await writeFile(late, rows.map((r) => JSON.stringify(r)).join('\n'));
      const checkedFirst = runCli(['import', late, '--url', s.url, '--key', s.adminKey, '--part', '10'], {});
      expect(await checkedFirst.exited).toBe(1);
      expect(checkedFirst.output()).toContain('laurel import: part 3 refused (HTTP 404 metric_not_found): line 26: ');
      expect(checkedFirst.output()).not.toContain('importing them');
      for (const id of ids) expect((await s.request('GET', `/api/users/${id}`)).status).toBe(404);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fills the runs of its dates, finalised again as of their ends, telling no one; a league keeps its runs', async () => {
    await s.setClock('2026-06-01T12:00:00Z');
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'League', key: 'lessons-league', rankBy: 'metric', metricKey: 'lessons', status: 'active', start: '2026-05-01', runUnit: 'day', runInterval: 1,
      league: { tiers: [{ key: 'bronze', name: 'Bronze', promote: 1, demote: 0 }, { key: 'silver', name: 'Silver', promote: 0, demote: 1 }], cohortSize: 5 },
    });
    // Every run up to the 30th of May final (the workers finalise 500 runs of a board a pass).
    while ((await s.workers!.testing.finaliseNow()).runs > 0);
    const day = '2026-05-28';
    const before = await read(s, `/api/leaderboards/daily?run=${day}`);
    expect(before.finalised).not.toBeNull();
    expect(before.rankings).toEqual([]);

    const [a, b, c] = [next(), next(), next()];
    const item = (id: string, value: number): Item => ({ key: 'lessons', user: { id }, value, occurredAt: `${day}T10:00:00Z` });
    expect(await imported([item(a, 3), item(b, 5), item(c, 1)])).toMatchObject({ processed: 3, failed: 0 });
    expect((await s.workers!.testing.finaliseNow()).runs).toBeGreaterThan(0);

    const after = await read(s, `/api/leaderboards/daily?run=${day}`);
    expect(after.rankings.map((r: { userId: string; value: number }) => [r.userId, r.value])).toEqual([[b, 5], [a, 3], [c, 1]]);
    expect(after.winners.map((w: { userId: string; rank: number }) => [w.userId, w.rank])).toEqual([[b, 1], [a, 2], [c, 3]]);
    expect(after.finalised).toBe(before.finalised);
    const xp = await read(s, `/api/leaderboards/xp-daily?run=${day}`);
    expect(xp.winners.map((w: { userId: string }) => w.userId).sort()).toEqual([a, b, c].sort());
    // The league's run of that day: its moves were decided, and it stays as it was.
    const league = (await read(s, `/api/leaderboards/lessons-league?run=${day}`)).rankings.map((r: { userId: string }) => r.userId);
    expect(league.filter((id: string) => [a, b, c].includes(id))).toEqual([]);
    // A pass after it records nothing again.
    await s.workers!.testing.finaliseNow();
    expect(await read(s, `/api/leaderboards/daily?run=${day}`)).toEqual(after);

    await deliver();
    for (const id of [a, b, c]) expect(hooksOf(id).map((h) => h.body)).toEqual([]);

    // Ties go by when the values were reached, not by the order the workers applied them: pairs
    // of users of one value, the later one's event first in the file, in partitions of their own.
    const tie = '2026-05-29';
    const pairs = Array.from({ length: 8 }, () => [next(), next()] as const);
    const ties: Item[] = pairs.flatMap(([early, later]) => [
      { key: 'lessons', user: { id: later }, value: 4, occurredAt: `${tie}T12:00:00Z` },
      { key: 'lessons', user: { id: early }, value: 4, occurredAt: `${tie}T01:00:00Z` },
    ]);
    expect(await imported(ties)).toMatchObject({ processed: 16, failed: 0 });
    const ranked = (await read(s, `/api/leaderboards/daily?run=${tie}&limit=100`)).rankings.map((r: { userId: string }) => r.userId);
    for (const [early, later] of pairs) expect(ranked.indexOf(early), `${early} before ${later}`).toBeLessThan(ranked.indexOf(later));
  });

  it('takes the runs still open as seen once applied: the rankings webhooks tell only what moves after', async () => {
    await s.setClock('2026-06-10T09:01:00Z');
    // The window that began at 09:00 passed over before the import.
    await deliver();
    const [a, b, c] = [next(), next(), next()];
    expect(await imported([
      { key: 'lessons', user: { id: a }, value: 7, occurredAt: '2026-06-10T08:00:00Z' },
      { key: 'lessons', user: { id: b }, value: 5, occurredAt: '2026-06-10T08:30:00Z' },
    ])).toMatchObject({ processed: 2, failed: 0 });
    await s.workers!.testing.finaliseNow();
    // The next window's pass: nothing moved since the import.
    await s.setClock('2026-06-10T09:16:00Z');
    await deliver();
    // Then a live user overtakes both: told, and so are the two, from the places the import gave them.
    await s.event('lessons', { id: c, tz: 'UTC' }, 9);
    await s.setClock('2026-06-10T09:31:00Z');
    const rankChanged = (id: string) => hooksOf(id).map((h) => JSON.parse(h.body)).filter((b) => b.type === 'leaderboard.rank_changed' && b.user.id === id && b.leaderboard.key === 'daily');
    await expect.poll(async () => { await deliver(); return rankChanged(c).length; }).toBe(1);
    await expect.poll(async () => { await deliver(); return rankChanged(a).length + rankChanged(b).length; }).toBe(2);
    expect(rankChanged(a).map((h) => [h.leaderboard.previousRank, h.leaderboard.rank])).toEqual([[1, 2]]);
    expect(rankChanged(b).map((h) => [h.leaderboard.previousRank, h.leaderboard.rank])).toEqual([[2, 3]]);
  });

  it('leaves a tenant\'s runs to the rankings webhooks only once its imports are applied', async () => {
    await s.setClock('2026-06-11T09:01:00Z');
    await deliver();
    const { redis, keys } = s.api.services;
    // Another import of the tenant under way (noted, not accepted yet): the one below stays
    // noted with it, its runs not taken as seen yet, across a window's end.
    const other = uuidv7(Date.now());
    await noteImport(redis, keys, other, DEFAULT_TENANT, Date.parse('2026-06-11T00:00:00Z'));
    const [a, b] = [next(), next()];
    expect(await imported([
      { key: 'lessons', user: { id: a }, value: 7, occurredAt: '2026-06-11T08:00:00Z' },
      { key: 'lessons', user: { id: b }, value: 5, occurredAt: '2026-06-11T08:30:00Z' },
    ])).toMatchObject({ processed: 2, failed: 0 });
    await s.workers!.testing.finaliseNow();
    await s.setClock('2026-06-11T09:16:00Z');
    await deliver();
    // The other one done with: the tenant's runs seen as they are, and the next window tells nothing of a and b.
    await forgetImports(redis, keys, [other]);
    await s.workers!.testing.finaliseNow();
    expect(await notedImports(redis, keys)).toEqual([]);
    // A live user overtakes both in the next window: told, the two from the places the import gave
    // them, and neither ever as a newcomer.
    const c = next();
    await s.event('lessons', { id: c, tz: 'UTC' }, 9);
    await s.setClock('2026-06-11T09:31:00Z');
    const rankChanged = (id: string) => hooksOf(id).map((h) => JSON.parse(h.body)).filter((x) => x.type === 'leaderboard.rank_changed' && x.user.id === id && x.leaderboard.key === 'daily');
    await expect.poll(async () => { await deliver(); return rankChanged(c).length + rankChanged(a).length + rankChanged(b).length; }).toBe(3);
    expect([a, b].flatMap((id) => rankChanged(id).map((x) => [x.leaderboard.previousRank, x.leaderboard.rank]))).toEqual([[1, 2], [2, 3]]);
  });

  const steps = fc.array(fc.record({
    // When it happened, after the one before.
    after: fc.oneof(fc.integer({ min: 1000, max: 3 * HOUR }), fc.integer({ min: 3 * HOUR, max: 40 * HOUR })),
    tz: fc.option(fc.constantFrom(...ZONES), { freq: 3 }),
    value: fc.integer({ min: 1, max: 9 }),
  }), { minLength: 1, maxLength: 8 });

  it('leaves a user whose history is imported in any order as the same events sent as they happened', { timeout: 600_000 }, async () => {
    let from = Date.UTC(2026, 6, 1);
    await fc.assert(fc.asyncProperty(steps, fc.infiniteStream(fc.nat()), async (list, randoms) => {
      const [live, past] = [next(), next()];
      let at = from;
      const events = list.map((step, i) => {
        at += step.after;
        return { at, tz: i === 0 ? step.tz ?? 'UTC' : step.tz ?? undefined, value: step.value };
      });
      for (const e of events) {
        await s.setClock(iso(e.at));
        const r = await s.request('POST', '/api/metrics/lessons/event', { body: { user: e.tz === undefined ? { id: live } : { id: live, tz: e.tz }, value: e.value } });
        expect(r.status, r.text).toBe(201);
      }
      // The history, shuffled, imported once the last event has happened.
      const items: Item[] = events.map((e) => ({ key: 'lessons', user: e.tz === undefined ? { id: past } : { id: past, tz: e.tz }, value: e.value, occurredAt: iso(e.at) }));
      const order = items.map((item) => ({ item, k: randoms.next().value as number })).sort((a, b) => a.k - b.k).map((o) => o.item);
      const arrival = at + HOUR;
      await s.setClock(iso(arrival));
      expect(await imported(order)).toMatchObject({ processed: items.length, failed: 0 });
      // Every board run of those days, final or not: an import fills them all.
      const range = [iso(from - DAY).slice(0, 10), iso(arrival + DAY).slice(0, 10), iso(from - DAY).slice(0, 10)] as const;
      expect(await lessonsState(s, past, ...range)).toEqual(await lessonsState(s, live, ...range));
      // The next case begins after this one: the service's clock only moves forward.
      from = arrival + DAY;
    }), { numRuns: 25 });
  });
});

describe('a history import restored', () => {
  it('comes back as it was from the log alone: imported, its past runs filled, told to no one', { timeout: 120_000 }, async () => {
    let s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '168h' } });
    const { prefix } = s;
    try {
      await s.setClock('2026-05-01T00:00:00Z');
      await configureLessons(s, '2026-05-01');
      await s.setClock('2026-06-01T12:00:00Z');
      while ((await s.workers!.testing.finaliseNow()).runs > 0);
      const items: Item[] = [];
      for (let d = 0; d < 12; d++) {
        for (const [id, value] of [['rita', 1 + (d % 3)], ['rosa', 2]] as const) {
          if (id === 'rosa' && d === 4) continue;
          items.push({ key: 'lessons', user: { id, tz: 'Europe/Paris' }, value, occurredAt: iso(Date.UTC(2026, 4, 3 + d, 8)) });
        }
      }
      const r = await s.request('POST', '/admin/v1/import', { body: items.reverse() });
      expect(r.status, r.text).toBe(202);
      await s.workers!.testing.batchesNow();
      await s.workers!.testing.finaliseNow();
      const range = ['2026-05-01', '2026-06-02', '2026-05-01'] as const;
      const run = async (t: TestServer) => {
        const b = await read(t, '/api/leaderboards/daily?run=2026-05-08');
        return { rankings: b.rankings, winners: b.winners, finalised: b.finalised };
      };
      const before = { rita: await lessonsState(s, 'rita', ...range), rosa: await lessonsState(s, 'rosa', ...range), run: await run(s) };
      expect(before.run.winners.map((w: { userId: string }) => w.userId)).toEqual(['rita', 'rosa']);
      const restored = await restoreServer(s, true);
      s = restored.server;
      expect(restored.result.failed).toBe(0);
      await s.setClock('2026-06-01T12:00:00Z');
      expect({ rita: await lessonsState(s, 'rita', ...range), rosa: await lessonsState(s, 'rosa', ...range), run: await run(s) }).toEqual(before);
      // Its log entries say it was imported still.
      const logged = await s.request('GET', '/admin/v1/users/rita/export');
      const events = (logged.body.events as { kind: string; body: { im?: number } }[]).filter((e) => e.kind === 'event');
      expect(events.length).toBe(12);
      expect(events.every((e) => e.body.im === 1)).toBe(true);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
});
