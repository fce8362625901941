/**
 * A board's shards (docs/api.md, "Shards"), on single Redis and on the Cluster: the same events,
 * with many ties, fed to boards of 3 shards and to boards of 1 (with and without breakdown
 * groups); every user's rank, value, participants and percentile, the event's answers, pages of
 * the top, windows around users, a friends board, the statistics and a finished run's winners are
 * the same on both. The
 * shards' rankings are apart, each its own key, in the n-th third of the slot space: on the
 * Cluster each on a primary of its own. A board sharded with no slot layout stored keeps the
 * names `:s<n>` (the first named as a board without shards names its ranking), ranked the
 * same. The Admin API's refusals of shards on a capped board,
 * out of bounds, and changed once the board has started.
 */
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { readRunAround, readRunPlaces } from '../../src/redis/sharded-rankings.js';
import { runShards } from '../../src/redis/board-shards.js';
import { slotRange } from '../../src/redis/shard-slots.js';

const USERS = 90;
const id = (i: number) => `s${String(i).padStart(3, '0')}`;
/** Few values, so most users tie with others. */
const valueOf = (i: number) => (i * 7) % 5 + 1;
const REGIONS = ['north', 'south'];

describe.each(targets())('a board\'s shards on %s', (target) => {
  let s: TestServer;
  const ids: Record<string, string> = {};
  /** Each event's answers on the 1-shard and the 3-shard board, to compare. */
  const answers: { one: unknown; three: unknown; oneRegion: unknown; threeRegion: unknown }[] = [];

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    const { region } = await s.attributes('user', 'region');
    const common = { status: 'active', start: '2026-01-01', rankBy: 'metric', metricId: plays, maxParticipants: null };
    for (const board of [
      { name: 'One', key: 'one' },
      { name: 'Three', key: 'three', shards: 3 },
      { name: 'One by region', key: 'one-region', breakdownAttributes: [region] },
      { name: 'Three by region', key: 'three-region', breakdownAttributes: [region], shards: 3 },
      { name: 'One a day', key: 'one-daily', runUnit: 'day', runInterval: 1 },
      { name: 'Three a day', key: 'three-daily', runUnit: 'day', runInterval: 1, shards: 3 },
      { name: 'Three named', key: 'three-named', shards: 3 },
    ]) ids[board.key] = (await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, ...board })).id;
    // A board sharded with no slot layout stored (shardSlots absent): its shards keep their names.
    const { store } = s.api.services;
    const { shardSlots, ...named } = store.current.leaderboards.get(ids['three-named'])!;
    expect(shardSlots).toBe('spread');
    expect(await store.put('leaderboards', 'update', named)).toBe('ok');
    // The api's store (the workers' too: they share it) loads it before the first event.
    await store.reload();
    expect(store.current.leaderboards.get(ids['three-named'])!.shardSlots).toBeUndefined();
    // Every user plays; then every third plays again (moving past some of those they tied with);
    // the clock stands still, so many values are reached in the same millisecond.
    const play = async (i: number, value: number) => {
      const body = await s.event('plays', { id: id(i), name: `Player ${i}`, attributes: { region: REGIONS[i % 2] } }, value);
      const b = body.leaderboards;
      answers.push({ one: b.one?.rank, three: b.three?.rank, oneRegion: b['one-region']?.rank, threeRegion: b['three-region']?.rank });
      answers.push({ one: b.one?.previousRank, three: b.three?.previousRank, oneRegion: b['one-region']?.previousRank, threeRegion: b['three-region']?.previousRank });
    };
    for (let i = 0; i < USERS; i++) await play(i, valueOf(i));
    for (let i = 0; i < USERS; i += 3) await play(i, (i % 4) + 1);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const read = async (path: string) => {
    const r = await s.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  /** The same read of the 1-shard and the 3-shard board. */
  const both = async (path: (key: string) => string, one = 'one', three = 'three') => {
    const [a, b] = await Promise.all([read(path(one)), read(path(three))]);
    return { one: a, three: b };
  };
  const strip = (body: Record<string, unknown>) => {
    const { id: _id, key: _key, name: _name, ...rest } = body;
    return rest;
  };

  it('answers every event with the rank the 1-shard board gives', () => {
    expect(answers).toHaveLength(2 * (USERS + USERS / 3));
    for (const a of answers) {
      expect(a.three).toBe(a.one);
      expect(a.threeRegion).toBe(a.oneRegion);
    }
    expect(answers.some((a) => a.one !== null && a.one !== undefined && (a.one as number) > 1)).toBe(true);
  });

  it('gives every user the same rank, value, participants, percentile and history', async () => {
    const ranks = new Set<number>();
    for (let i = 0; i < USERS; i++) {
      const { one, three } = await both((key) => `/v1/users/${id(i)}/leaderboards/${key}?numEvents=10`);
      expect(one.participants).toBe(USERS);
      expect(one.history.length).toBeGreaterThan(0);
      expect({ ...strip(three), rank: three.rank }, id(i)).toEqual(strip(one));
      ranks.add(one.rank);
      const grouped = await both((key) => `/v1/users/${id(i)}/leaderboards/${key}?numEvents=10`, 'one-region', 'three-region');
      expect(strip(grouped.three), id(i)).toEqual(strip(grouped.one));
      expect(grouped.one.participants).toBe(USERS / 2);
    }
    // Ties are ranked apart, one by one: every rank from 1 to USERS once.
    expect([...ranks].sort((a, b) => a - b)).toEqual(Array.from({ length: USERS }, (_, k) => k + 1));
  });

  it('reads the same pages of the top, the whole board included', async () => {
    for (const [offset, limit] of [[0, 10], [0, USERS], [7, 25], [60, 50], [USERS, 5], [3, 0]]) {
      const { one, three } = await both((key) => `/v1/leaderboards/${key}?offset=${offset}&limit=${limit}`);
      expect(three.rankings, `${offset}/${limit}`).toEqual(one.rankings);
      expect(three.participants).toBe(one.participants);
    }
    const whole = await read(`/v1/leaderboards/three?limit=${USERS}`);
    expect(whole.rankings.map((r: { rank: number }) => r.rank)).toEqual(Array.from({ length: USERS }, (_, k) => k + 1));
    const grouped = await both((key) => `/v1/leaderboards/${key}?userAttributes=region:south&offset=5&limit=30`, 'one-region', 'three-region');
    expect(grouped.three.rankings).toEqual(grouped.one.rankings);
  });

  it('reads the same window around every user, clamped at the top and the bottom', async () => {
    for (let i = 0; i < USERS; i++) {
      for (const [offset, limit] of [[-5, 11], [-40, 3], [2, 4]]) {
        const { one, three } = await both((key) => `/v1/leaderboards/${key}?userId=${id(i)}&offset=${offset}&limit=${limit}`);
        expect(three.rankings, `${id(i)} ${offset}/${limit}`).toEqual(one.rankings);
        expect(three.percentile).toBe(one.percentile);
      }
    }
    const grouped = await both((key) => `/v1/leaderboards/${key}?userAttributes=region:north&userId=${id(10)}&offset=-3&limit=7`, 'one-region', 'three-region');
    expect(grouped.three.rankings).toEqual(grouped.one.rankings);
    expect((await read('/v1/leaderboards/three?userId=nobody&offset=-5&limit=11')).rankings).toEqual([]);
  });

  it('reads a deep page from a pivot found by halves, the same as from the top', async () => {
    // A deep page (past 1,000 places) is read near a pivot: forced here on a small board.
    const { keys, redis } = s.api.services;
    const lb = s.api.services.store.current.leaderboards.get(ids.three)!;
    const shards = runShards(keys, DEFAULT_TENANT, lb, lb.start, '');
    const whole = (await read(`/v1/leaderboards/one?limit=${USERS}`)).rankings.map((r: Record<string, unknown>) => ({ userId: r.userId, rank: r.rank, value: r.value }));
    for (const [start, count] of [[0, 5], [1, 10], [37, 20], [80, 30], [USERS - 1, 3], [USERS, 3], [1e15, 3]]) {
      expect(await readRunPlaces(redis, shards, start, count, 0), `${start}/${count}`).toEqual(whole.slice(start, start + count));
    }
    for (const user of [id(0), id(44), id(89)]) {
      const near = await readRunAround(redis, shards, user, -30, 8, 0);
      const rank = whole.findIndex((r: { userId: string }) => r.userId === user);
      expect(near?.place.rank).toBe(rank + 1);
      expect(near?.places, user).toEqual(whole.slice(Math.max(0, rank - 30), Math.max(0, rank - 30) + 8));
    }
    // Through the API: far past the end, and far from a user.
    expect((await read(`/v1/leaderboards/three?offset=${Number.MAX_SAFE_INTEGER}&limit=5`)).rankings).toEqual([]);
    expect((await read(`/v1/leaderboards/three?userId=${id(3)}&offset=${Number.MAX_SAFE_INTEGER}&limit=5`)).rankings).toEqual([]);
    expect((await read(`/v1/leaderboards/three?userId=${id(3)}&offset=-${Number.MAX_SAFE_INTEGER}&limit=5`)).rankings)
      .toEqual((await read('/v1/leaderboards/one?limit=5')).rankings);
  });

  it('ranks the same friends board', async () => {
    const friends = [id(3), id(40), 'nobody', id(41), id(42), id(89), id(0), id(5), id(10)].join(',');
    const { one, three } = await both((key) => `/v1/leaderboards/${key}?userIds=${friends}`);
    expect(three.rankings).toEqual(one.rankings);
    expect(three.rankings).toHaveLength(8);
    const all = Array.from({ length: USERS }, (_, i) => id(i)).join(',');
    const everyone = await both((key) => `/v1/leaderboards/${key}?userIds=${all}`);
    expect(everyone.three.rankings).toEqual(everyone.one.rankings);
  });

  it('sums the statistics over the shards', async () => {
    const stats = async (key: string) => (await read(`/admin/v1/leaderboards/${ids[key]}/stats`)) as Record<string, any>;
    const [one, three] = await Promise.all([stats('one'), stats('three')]);
    expect(three.participants).toBe(USERS);
    expect(three.distribution).toEqual(one.distribution);
    expect(three.rankChanges.entered).toBe(USERS);
    expect(three.runs).toEqual(one.runs);
  });

  it('keeps each shard in a ranking of its own, in the n-th third of the slot space, each on a primary of its own on the Cluster', async () => {
    const { keys, redis } = s.api.services;
    const lb = s.api.services.store.current.leaderboards.get(ids.three)!;
    const shards = runShards(keys, DEFAULT_TENANT, lb, lb.start, '');
    const head = `${s.prefix}:{lb:${DEFAULT_TENANT}:${lb.id}:${lb.start}`;
    shards.forEach((k, n) => expect(k.ranking).toMatch(new RegExp(`^${head.replace(/[{}]/g, '\\$&')}:s${n}\\.\\d+\\}:r$`)));
    const sizes = await Promise.all(shards.map((k) => redis.zcard(k.ranking)));
    expect(sizes.every((n) => n > 0), String(sizes)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(USERS);
    if (target === 'cluster') {
      // Each shard's slot, as the Cluster computes it, lies in its third of the 16,384 slots.
      const slots = await Promise.all(shards.map(async (k) => Number(await redis.call('CLUSTER', 'KEYSLOT', k.ranking))));
      slots.forEach((slot, n) => {
        const { from, to } = slotRange(n, 3);
        expect(slot, `shard ${n}: ${String(slots)}`).toBeGreaterThanOrEqual(from);
        expect(slot, `shard ${n}: ${String(slots)}`).toBeLessThan(to);
      });
      // Asked one by one, each of the Cluster's 3 primaries holds exactly one of the rankings.
      const primaries = (redis as Cluster).nodes('master');
      expect(primaries).toHaveLength(3);
      const held = await Promise.all(primaries.map(async (node) => {
        const own = String(await node.call('CLUSTER', 'MYID'));
        const counts = await Promise.all(slots.map(async (slot) => Number(await node.call('CLUSTER', 'COUNTKEYSINSLOT', slot))));
        // CLUSTER NODES, as this primary states it: the slot ranges it serves hold its shards' slots.
        const mine = String(await node.call('CLUSTER', 'NODES')).split('\n').find((line) => line.startsWith(own))!;
        const ranges = mine.split(' ').slice(8).map((r) => r.split('-').map(Number));
        const shards = slots.map((_, n) => n).filter((n) => counts[n] > 0);
        for (const n of shards) expect(ranges.some(([a, b = a]) => slots[n] >= a && slots[n] <= b), `${mine}: ${slots[n]}`).toBe(true);
        return { node: `${node.options.host}:${node.options.port}`, shards };
      }));
      expect(held.map((h) => h.shards.length), JSON.stringify(held)).toEqual([1, 1, 1]);
      expect(new Set(held.flatMap((h) => h.shards))).toEqual(new Set([0, 1, 2]));
    }
  });

  it('keeps a board sharded without a slot layout on the names `:s<n>` its keys have, ranked as ever', async () => {
    const { keys, redis } = s.api.services;
    const lb = s.api.services.store.current.leaderboards.get(ids['three-named'])!;
    const shards = runShards(keys, DEFAULT_TENANT, lb, lb.start, '');
    expect(shards.map((k) => k.ranking)).toEqual([
      `${s.prefix}:{lb:${DEFAULT_TENANT}:${lb.id}:${lb.start}}:r`,
      `${s.prefix}:{lb:${DEFAULT_TENANT}:${lb.id}:${lb.start}:s1}:r`,
      `${s.prefix}:{lb:${DEFAULT_TENANT}:${lb.id}:${lb.start}:s2}:r`,
    ]);
    const sizes = await Promise.all(shards.map((k) => redis.zcard(k.ranking)));
    expect(sizes.every((n) => n > 0), String(sizes)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(USERS);
    const pages = await both((key) => `/v1/leaderboards/${key}?limit=${USERS}`, 'one', 'three-named');
    expect(pages.three.rankings).toEqual(pages.one.rankings);
    for (const i of [0, 17, 44, 89]) {
      const user = await both((key) => `/v1/users/${id(i)}/leaderboards/${key}?numEvents=10`, 'one', 'three-named');
      expect(strip(user.three), id(i)).toEqual(strip(user.one));
    }
  });

  it('finalises a run with the winners the 1-shard board has', async () => {
    // The run of May 4th is final once the last zone has finished it (36 hours after it began in UTC).
    await s.setClock('2026-05-05T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    const { one, three } = await both((key) => `/v1/leaderboards/${key}?run=2026-05-04&limit=0`, 'one-daily', 'three-daily');
    expect(one.winners).toHaveLength(3);
    expect(three.finalised).toBe('2026-05-05T12:00:00.000Z');
    expect(three.winners).toEqual(one.winners);
  });

  it('exports each user\'s place on the whole run', async () => {
    for (let i = 10; i < 22; i++) {
      const r = await s.request('GET', `/admin/v1/users/${id(i)}/export`);
      expect(r.status, r.text).toBe(200);
      const places = r.body.leaderboards as { key: string; run: string; rank: number; value: number }[];
      const of = (key: string) => places.filter((p) => p.key === key).map((p) => [p.run, p.rank, p.value]);
      expect(of('one')).toHaveLength(1);
      expect(of('three'), id(i)).toEqual(of('one'));
      expect(of('three-region'), id(i)).toEqual(of('one-region'));
      expect(of('three-daily'), id(i)).toEqual(of('one-daily'));
    }
  });

  it('takes an excluded and an erased user off every shard, as off one ranking', async () => {
    const excluded = await s.request('PUT', `/admin/v1/users/${id(5)}/exclusion`, { body: { reason: 'bot' } });
    expect(excluded.status, excluded.text).toBe(200);
    const erased = await s.request('DELETE', `/admin/v1/users/${id(6)}`);
    expect(erased.status, erased.text).toBe(202);
    await expect.poll(async () => (await s.request('GET', `/admin/v1/erasures/${erased.body.erasureId}`)).body.status, { timeout: 60_000 }).toBe('done');
    for (const [one, three] of [['one', 'three'], ['one-region', 'three-region']]) {
      const path = (key: string) => `/v1/leaderboards/${key}?limit=${USERS}${key.endsWith('region') ? '&userAttributes=region:north' : ''}`;
      const pages = await both(path, one, three);
      expect(pages.three.rankings).toEqual(pages.one.rankings);
      expect(pages.three.participants).toBe(pages.one.participants);
      expect(pages.three.rankings.map((r: { userId: string }) => r.userId)).not.toContain(id(6));
      expect(pages.three.rankings.map((r: { userId: string }) => r.userId)).not.toContain(id(5));
    }
    expect((await read('/v1/leaderboards/three?limit=0')).participants).toBe(USERS - 2);
  });

  it('refuses shards on a capped board, out of bounds, and changed once the board has started', async () => {
    const create = async (item: Record<string, unknown>) => {
      const r = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'X', key: `x${Math.random().toString(36).slice(2, 8)}`, rankBy: 'streak', ...item }] });
      expect(r.status, r.text).toBe(200);
      expect(r.body.created).toEqual([]);
      return r.body.issues[0].message as string;
    };
    expect(await create({ shards: 4 })).toMatch(/shards \(4\) needs an uncapped board/);
    expect(await create({ shards: 4, maxParticipants: 10 })).toMatch(/shards \(4\) needs an uncapped board/);
    expect(await create({ shards: 65, uncapped: true })).toMatch(/shards/);
    expect(await create({ shards: 0, uncapped: true })).toMatch(/shards/);
    const view = await read(`/admin/v1/leaderboards/${ids.three}`);
    expect(view.shards).toBe(3);
    expect((await read(`/admin/v1/leaderboards/${ids.one}`)).shards).toBeUndefined();
    const patch = async (body: Record<string, unknown>) => {
      const r = await s.request('PATCH', '/admin/v1/leaderboards', { body: [body] });
      expect(r.status, r.text).toBe(200);
      return r.body as { updated: unknown[]; issues: { message: string }[] };
    };
    expect((await patch({ id: ids.three, shards: 4 })).issues[0].message).toMatch(/shards can only change before the leaderboard starts/);
    expect((await patch({ id: ids.one, shards: 2 })).issues[0].message).toMatch(/shards can only change before the leaderboard starts/);
    expect((await patch({ id: ids.three, maxParticipants: 1000 })).issues).toHaveLength(1);
    // Before it starts, a board's shards may change.
    const later = await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Later', key: 'later', rankBy: 'streak', uncapped: true, shards: 2, status: 'scheduled', start: '2026-09-01' });
    const changed = await patch({ id: later.id, shards: 8 });
    expect(changed.issues).toEqual([]);
    expect(changed.updated).toMatchObject([{ shards: 8 }]);
    // Its shards set anew through the API: spread over the slot space, the stored named layout too.
    await expect.poll(() => s.api.services.store.current.leaderboards.get(later.id)?.shards).toBe(8);
    expect(s.api.services.store.current.leaderboards.get(later.id)!.shardSlots).toBe('spread');
  });
});
