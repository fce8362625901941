/**
 * What a client key may see of other users over live updates (docs/live.md, "What a client key may
 * see"), on Redis and on the Cluster: a key scoped to one user subscribes to every kind of shared
 * topic (boards ranked by a metric, by points, by a streak, with breakdown groups, repeating runs,
 * a league's cohort),
 * every message type of those topics is driven (`leaderboard.rank_changed`, `leaderboard.changed`,
 * `leaderboard.started`, `leaderboard.finished`; a `resync` names nobody), and any field of a user
 * beyond the public ones (id, name, rank, value), or any private value of a user anywhere in a
 * message, fails. The user's own topic still carries its own profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets, type TestServer } from '../support/server.js';
import { putStreakSettings } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { liveUrl, openLive, type LiveClient, type LiveMessage } from '../support/live-client.js';

/** The fields of another user a shared topic may show, where a user or a place in a ranking is. */
const USER_FIELDS = new Set(['id', 'name']);
const RANKED_FIELDS = new Set(['userId', 'userName', 'rank', 'value']);
/** Names that hold a user's private data wherever they stand. */
const PRIVATE_FIELDS = new Set(['email', 'deviceTokens', 'attributes', 'control', 'tz', 'subscribeToEmails', 'preferences', 'created', 'updated']);

/** A user's private values: none may show on a shared topic. */
const privateOf = (id: string) => ({ email: `${id}@private.test`, token: `device-token-of-${id}`, secret: `secret-of-${id}` });

/** Every way a message of a shared topic shows more of a user than the public fields; empty when none. */
function overreach(m: LiveMessage, users: string[]): string[] {
  const found: string[] = [];
  const text = JSON.stringify(m);
  for (const u of users) {
    for (const value of Object.values(privateOf(u))) if (text.includes(value)) found.push(`${m.type}: ${u}'s ${value}`);
  }
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) if (PRIVATE_FIELDS.has(k)) found.push(`${m.type}: ${path}.${k}`);
    if ('user' in o && typeof o.user === 'object' && o.user !== null) {
      for (const k of Object.keys(o.user)) if (!USER_FIELDS.has(k)) found.push(`${m.type}: ${path}.user.${k}`);
    }
    if ('userId' in o) for (const k of Object.keys(o)) if (!RANKED_FIELDS.has(k)) found.push(`${m.type}: ${path}.${k} beside userId`);
    for (const [k, x] of Object.entries(o)) walk(x, `${path}.${k}`);
  };
  walk(m.data, 'data');
  return found;
}

describe.each(targets())('what a client key sees on live topics on %s', (target) => {
  let s: TestServer;
  const open: LiveClient[] = [];
  const players = ['ann', 'bob', 'cat', 'dan'];

  const userKey = async (userId: string): Promise<string> => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId }] });
    expect(r.status, r.text).toBe(201);
    return r.body.created[0].key as string;
  };
  const live = async (key: string) => {
    const c = await openLive(liveUrl(s.url, key));
    open.push(c);
    return c;
  };
  /** A player with every private field set. */
  const player = (id: string, city: string) => {
    const p = privateOf(id);
    return { id, name: `Player ${id}`, tz: 'UTC', email: p.email, deviceTokens: [p.token], attributes: { secret: p.secret, city } };
  };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-10-01T09:00:00Z');
    const { lessons } = await s.metrics('lessons');
    const attrs = await s.attributes('user', 'secret', 'city');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
    const boards = await s.request('POST', '/admin/v1/leaderboards', { body: [
      { name: 'Lessons', key: 'lessons', rankBy: 'metric', metricId: lessons, status: 'active', start: '2020-01-01' },
      { name: 'XP', key: 'xp', rankBy: 'points', pointsSystemKey: 'xp', status: 'active', start: '2020-01-01' },
      { name: 'Streaks', key: 'streaks', rankBy: 'streak', status: 'active', start: '2020-01-01' },
      { name: 'By city', key: 'by-city', rankBy: 'metric', metricId: lessons, breakdownAttributes: [attrs.city], status: 'active', start: '2020-01-01' },
      { name: 'Daily', key: 'daily', rankBy: 'metric', metricId: lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1, status: 'scheduled', start: '2026-10-02' },
      {
        name: 'League', key: 'league', rankBy: 'metric', metricId: lessons, runUnit: 'day', runInterval: 1, status: 'active', start: '2026-10-01',
        league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver' }] },
      },
    ] });
    expect(boards.status, boards.text).toBe(201);
    expect(boards.body.issues).toEqual([]);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await s?.close();
  });

  it('sends a key scoped to a user only the public fields of other users on every shared topic, for every message type', async () => {
    const watcher = await live(await userKey('watcher'));
    const boards = ['leaderboard:lessons', 'leaderboard:xp', 'leaderboard:streaks', 'leaderboard:by-city', 'leaderboard:daily'];
    // The watcher's own cohort: the players join it after the watcher.
    const topics = [...boards, 'league:league'];
    await watcher.subscribe(topics);
    // The run about to start (10:00 UTC the day before it).
    await s.setClock('2026-10-01T10:00:00Z');
    await eventually(async () => {
      await s.workers!.testing.webhooksNow();
      expect(watcher.messages.some((m) => m.type === 'leaderboard.started')).toBe(true);
    });
    await s.setClock('2026-10-02T12:00:00Z');
    await s.event('lessons', 'watcher', 1);
    for (const [i, id] of players.entries()) await s.event('lessons', player(id, i % 2 === 0 ? 'paris' : 'oslo'), i + 1);
    // Moves on every board (a pass sends the best ranked few), and each board's new top 10; and
    // dan's, the best ranked, whose last event a pass after the first may be the one to read.
    for (const topic of topics) {
      await watcher.next((m) => m.topic === topic && m.type === 'leaderboard.rank_changed');
      await watcher.next((m) => m.topic === topic && m.type === 'leaderboard.changed');
    }
    await eventually(() => expect(watcher.messages.some((m) => m.type === 'leaderboard.rank_changed' && m.data?.user?.id === 'dan')).toBe(true));
    // The daily run, final once every zone has finished its day.
    await s.setClock('2026-10-03T12:00:00Z');
    await eventually(async () => {
      await s.workers!.testing.finaliseNow();
      expect(watcher.messages.some((m) => m.type === 'leaderboard.finished')).toBe(true);
    });

    const shared = watcher.messages.filter((m) => m.topic !== undefined && m.type !== 'subscribed');
    const types = new Set(shared.map((m) => m.type));
    // A `resync` names nobody (its data is null); the board's own types each came.
    expect([...types].filter((t) => t !== 'resync').sort()).toEqual(['leaderboard.changed', 'leaderboard.finished', 'leaderboard.rank_changed', 'leaderboard.started']);
    expect(shared.filter((m) => m.type === 'resync').every((m) => m.data === null)).toBe(true);
    expect(shared.flatMap((m) => overreach(m, players))).toEqual([]);
    // What is public does show: a mover's name, and the ranking of the finished run.
    const moved = shared.find((m) => m.type === 'leaderboard.rank_changed' && m.data.user.id === 'dan');
    expect(moved!.data.user).toEqual({ id: 'dan', name: 'Player dan' });
    const finished = shared.find((m) => m.type === 'leaderboard.finished');
    expect(finished!.data.leaderboard.rankings[0]).toEqual({ userId: 'dan', rank: 1, value: 4 });
  });

  it('sends a user their own profile on their own topic', async () => {
    const ann = await live(await userKey('ann'));
    await ann.subscribe(['user:ann']);
    await s.event('lessons', player('ann', 'paris'), 5);
    const own = await ann.next((m) => m.type === 'leaderboard.rank_changed');
    const p = privateOf('ann');
    expect(own.data.user).toMatchObject({ id: 'ann', email: p.email, deviceTokens: [p.token], attributes: { secret: p.secret } });
  });
});
