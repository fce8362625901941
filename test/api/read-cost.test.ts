/**
 * What a read costs, with a key scoped to a user (docs/api.md, "Shards"; docs/performance.md, "A
 * read's cost"): never a time, what bounds it. On a redis-server of the test's own (its command
 * counts and bytes are this file's reads' alone; on the shared Redis or Cluster other files' would
 * mix in, so this file runs on it only: the reads' answers on the Cluster are
 * leaderboards-shards.test.ts's), `laurel api` as `npm start` runs it (the built CLI, its api
 * processes), the user keys' rate limit off (the bound is each read's own, not the limit's), and boards of 20,000
 * generated participants (test/support/board-participants.ts) whose values tie in runs:
 * - a friends board of 1,000 of them on a board of 64 shards makes two script calls a shard, and
 *   Redis runs at most two commands a user and shard for it (its scripts' commands included; and
 *   a read of each user's name), its values tied in runs or all distinct (the most it costs);
 * - a page of 1,000 from the top of it, from a user and before them, and deep, makes Redis send at
 *   most twice the bytes of the same page of a board of one ranking;
 * - each read of the Application API at the maximum of its parameters (every integer at its
 *   maximum, the costly leaderboard reads each way), 50 at once with one user's key: each
 *   answered, another user's read answered while they run, and each api process's peak resident
 *   memory at most PEAK_MIB.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeParticipants } from '../support/board-participants.js';
import { descendants, sample } from '../support/process-stats.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { DEFAULT_TENANT, Keys } from '../../src/redis/keys.js';

const PARTICIPANTS = 20_000;
const SHARDS = 64;
const FRIENDS = 1000;
/** Reads sent at once. */
const AT_ONCE = 50;
/** An api process's most resident memory (MiB) through the reads: one idles at about 150, and reaches 250 with them. */
const PEAK_MIB = 350;
const START = '2026-01-01';
/** Values among 40: most participants tie with hundreds of others. */
const valueOf = (i: number) => 1 + ((i * 7919) % 40);
const MAX = Number.MAX_SAFE_INTEGER;

interface Operation {
  tags?: string[];
  parameters?: { name?: string; in?: string; schema?: { type?: string | string[]; maximum?: number } }[];
}

describe('what a read costs', () => {
  let own: RedisServer;
  let redis: Redis;
  let s: TestServer;
  let key = '';
  const friends = Array.from({ length: FRIENDS }, (_, i) => `u${(i * 19) % PARTICIPANTS}`).join(',');

  /** Redis's commands (those its scripts run included) and bytes sent while `read` runs. */
  async function measured(read: () => Promise<unknown>): Promise<{ commands: Map<string, number>; all: number; bytesOut: number }> {
    const stats = async () => {
      const calls = new Map<string, number>();
      for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1], Number(m[2]));
      return { calls, out: Number(/^total_net_output_bytes:(\d+)/m.exec(await redis.info('stats'))![1]) };
    };
    const before = await stats();
    await read();
    const after = await stats();
    const commands = new Map([...after.calls].map(([c, n]) => [c, n - (before.calls.get(c) ?? 0)]));
    // The measurement's own INFO commands (one before, counted in `after`).
    commands.set('info', (commands.get('info') ?? 0) - 2);
    return { commands, all: [...commands.values()].reduce((a, n) => a + n, 0), bytesOut: after.out - before.out };
  }

  const read = async (path: string, k: string | undefined = key) => {
    const r = await s.request('GET', path, { key: k });
    expect(r.status, `${path.slice(0, 120)}: ${r.text.slice(0, 300)}`).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    own = await startRedisServer();
    redis = new Redis(own.url);
    s = await startTestServer({ processes: true, env: { REDIS_URL: own.url, LAUREL_USER_KEY_RATE_LIMIT: 'off', LAUREL_HEARTBEAT_MS: '3600000' } });
    const { plays } = await s.metrics('plays');
    const common = { rankBy: 'metric', metricId: plays, maxParticipants: null, status: 'active', start: START };
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ ...common, name: 'Wide', key: 'wide', shards: SHARDS }, { ...common, name: 'Narrow', key: 'narrow' }, { ...common, name: 'Distinct', key: 'distinct', shards: SHARDS }],
    });
    expect(boards.status, boards.text).toBe(201);
    const keys = new Keys(s.prefix, s.settings.partitions);
    const at = (i: number) => Date.parse('2026-01-02T00:00:00Z') + i * 1000;
    for (const b of boards.body.created as { id: string; key: string }[]) {
      // The distinct board's values are all different: no ties to share a count.
      const participants = Array.from({ length: PARTICIPANTS }, (_, i) => ({ userId: `u${i}`, value: b.key === 'distinct' ? i : valueOf(i), at: at(i) }));
      await writeParticipants(redis, keys, { tenant: DEFAULT_TENANT, board: b.key === 'narrow' ? { id: b.id } : { id: b.id, shards: SHARDS, shardSlots: 'spread' }, run: START }, participants);
    }
    await s.event('plays', { id: 'other', name: 'Other' }, 1);
    // The key's user is a user of its own (its reads of itself answer 200), and a points system to read.
    await s.event('plays', 'u7', 1);
    const xp = await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: plays, metricThreshold: 1, points: 10, status: 'active' }] }] });
    expect(xp.status, xp.text).toBe(201);
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'u7' }] });
    expect(k.status, k.text).toBe(201);
    key = k.body.created[0].key as string;
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    redis?.disconnect();
    await own?.stop();
  });

  it('ranks a friends board of 1,000 on 64 shards with two script calls a shard and at most two commands a user and shard', async () => {
    // The same ranks as the board of one ranking gives.
    expect((await read(`/api/leaderboards/wide?userIds=${friends}`)).rankings).toEqual((await read(`/api/leaderboards/narrow?userIds=${friends}`)).rankings);
    for (const board of ['wide', 'distinct']) {
      const path = `/api/leaderboards/${board}?userIds=${friends}`;
      const { commands, all } = await measured(async () => expect((await read(path)).rankings).toHaveLength(FRIENDS));
      const scripts = (commands.get('evalsha') ?? 0) + (commands.get('eval') ?? 0);
      // Two a shard, and the key's own lookup.
      expect(scripts, board).toBeLessThanOrEqual(2 * SHARDS + 1);
      // Two a user and shard; beside them a name a user; a size, a read of the users and the two
      // script calls a shard; the run's state, the key's lookup, and the api's own few meanwhile.
      expect(all, board).toBeLessThanOrEqual(2 * FRIENDS * SHARDS + FRIENDS + 4 * SHARDS + 100);
    }
  });

  it('reads a page of 1,000 of 64 shards for about the bytes of the page', async () => {
    for (const q of ['limit=1000', 'limit=1000&offset=9000', 'limit=1000&offset=15000', 'userId=u5000&offset=-500&limit=1000', 'userId=u5000&offset=-9000&limit=1000']) {
      const wide = await measured(() => read(`/api/leaderboards/wide?${q}`));
      const narrow = await measured(() => read(`/api/leaderboards/narrow?${q}`));
      expect((await read(`/api/leaderboards/wide?${q}`)).rankings, q).toEqual((await read(`/api/leaderboards/narrow?${q}`)).rankings);
      expect(wide.bytesOut, q).toBeLessThanOrEqual(2 * narrow.bytesOut);
    }
  });

  it('answers every read at the maximum of its parameters, 50 at once, another user\'s too meanwhile, in bounded memory', async () => {
    const doc = (await s.request('GET', '/openapi.json')).body as { paths: Record<string, { get?: Operation }> };
    const paths: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      const get = item.get;
      if (get === undefined || !(get.tags ?? []).includes('Application API') || template.endsWith('/live') || template.startsWith('/leaderboards/{key}')) continue;
      const q = new URLSearchParams();
      for (const p of get.parameters ?? []) {
        if (p.in !== 'query' || p.name === undefined) continue;
        if (p.schema?.type === 'integer' && p.schema.maximum !== undefined) q.set(p.name, String(p.schema.maximum));
      }
      if (template === '/streaks') q.set('userIds', 'u7');
      if (template.endsWith('/event-summary') || template.endsWith('/metrics/{key}/event-summary')) {
        for (const [a, b] of [['startDate', 'endDate'], ['start_date', 'end_date']]) { q.set(a, '2025-01-01'); q.set(b, '2026-02-04'); }
        q.set('aggregation', 'daily');
      }
      const key = template.includes('/points/') ? 'xp' : template.includes('/leaderboards/') ? 'wide' : template.includes('/leagues/') ? 'wide' : 'plays';
      paths.push(`/api${template.replace('{id}', 'u7').replace('{key}', key)}${q.size > 0 ? `?${q}` : ''}`);
    }
    // The leaderboard's costly reads, each at its maximum one way.
    for (const q of [`userIds=${friends}`, 'limit=1000', 'limit=1000&offset=9000', `limit=1000&offset=${MAX}`, `userId=u5000&offset=-${MAX}&limit=1000`, 'userId=u5000&offset=-999&limit=1000']) {
      paths.push(`/api/leaderboards/wide?${q}`);
    }
    const pids = descendants(s.processes!.run.child.pid!);
    for (const path of paths) {
      const answers = Promise.all(Array.from({ length: AT_ONCE }, () => s.request('GET', path, { key }).then((r) => r.status)));
      const other = await s.request('GET', '/api/users/other');
      expect(other.status, `another user's read beside ${path}`).toBe(200);
      for (const status of await answers) expect(status, path).toBeLessThan(500);
    }
    expect(paths.length).toBeGreaterThan(20);
    for (const pid of pids) expect(sample(pid)!.peakMiB, `api process ${pid}`).toBeLessThanOrEqual(PEAK_MIB);
  }, 600_000);
});
