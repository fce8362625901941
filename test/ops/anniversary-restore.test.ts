/**
 * Anniversary achievements through `laurel restore`, on single Redis and on a Cluster of its own:
 * completions before the snapshot, and after it (by the workers' pass, silently for an achievement
 * activated after the anniversary, at an event whose composite follows, for a user created after
 * the snapshot), then Redis lost and restored: every read as before, nothing completed twice, and
 * the anniversaries still to come completed by the workers' pass on the user's calendar (the due
 * sets rebuilt) and not a moment before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { startWorkers } from '../../workers/index.js';
import { ownCluster, singleRedis } from '../support/losable-redis.js';
import { redisServerAvailable } from '../support/redis-cluster.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const USERS = ['a', 'b', 'c', 'd', 'e'];
const log = createLogger('silent');

/** What the API answers about the users' achievements. */
async function readAll(s: TestServer): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of [...USERS.flatMap((id) => [`/api/users/${id}`, `/api/users/${id}/achievements?includeIncomplete=true`]), '/api/achievements']) {
    const r = await s.request('GET', path);
    out[path] = { status: r.status, body: r.body };
  }
  return out;
}

const keysOf = async (s: TestServer, user: string) =>
  ((await s.request('GET', `/api/users/${user}/achievements`)).body as { key: string }[]).map((a) => a.key).sort();

describe.each(redisServerAvailable() === null ? ['redis', 'cluster'] : [])('anniversary achievements restored on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('come back as they were, and the ones to come still complete', { timeout: 120_000 }, async () => {
    const redis = target === 'redis' ? await singleRedis() : await ownCluster();
    cleanups.push(() => redis.stop());
    let s = await startTestServer({ clock: 'manual', workers: true, env: { ...redis.env } });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());

    await s.setClock('2024-01-10T12:00:00Z');
    await s.metrics('lessons');
    const made = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'One year', key: 'one-year', trigger: 'anniversary', anniversaryYears: 1 },
        { name: 'Two years', key: 'two-years', trigger: 'anniversary', anniversaryYears: 2 },
        { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
      ],
    });
    expect(made.status, made.text).toBe(201);
    const composite = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'Loyal', key: 'loyal', trigger: 'achievement', achievementIds: [made.body.created[0].id, made.body.created[2].id] }],
    });
    expect(composite.status, composite.text).toBe(201);
    await s.workers!.testing.anniversariesIdle();
    // a: an event in UTC; b: an identification in Tokyo; c: an API completion in New York; d: an event in UTC.
    await s.event('lessons', { id: 'a', tz: 'UTC' }, 1);
    await s.setClock('2024-01-12T03:00:00Z');
    expect((await s.request('POST', '/api/users', { body: { id: 'b', tz: 'Asia/Tokyo' } })).status).toBe(201);
    await s.setClock('2024-01-15T17:00:00Z');
    expect((await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'c', tz: 'America/New_York' } } })).status).toBe(201);
    await s.setClock('2024-01-20T12:00:00Z');
    await s.event('lessons', { id: 'd', tz: 'UTC' }, 1);

    // Before the snapshot: a's first anniversary, by the pass.
    await s.setClock('2025-01-10T00:00:00Z');
    await s.workers!.testing.anniversariesNow();
    expect(await keysOf(s, 'a')).toEqual(['one-year']);
    await s.workers!.testing.drainNow();
    await s.setClock('2025-01-11T09:00:00Z');
    expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });

    // After it: an achievement activated after a's anniversary (a backfill's for a, silent), a
    // user created by an event, b's anniversary by the pass, c's at an event (with the composite),
    // d's by the pass.
    await s.setClock('2025-01-11T12:00:00Z');
    const later = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'First birthday', key: 'birthday', trigger: 'anniversary', anniversaryYears: 1 }] });
    expect(later.status, later.text).toBe(201);
    await s.workers!.testing.anniversariesIdle();
    await s.workers!.testing.anniversariesNow();
    expect(await keysOf(s, 'a')).toEqual(['birthday', 'one-year']);
    await s.workers!.testing.pauseAnniversaryPass();
    await s.event('lessons', { id: 'e', tz: 'UTC' }, 1);
    await s.setClock('2025-01-11T15:00:00Z');
    await s.workers!.testing.anniversariesNow();
    expect(await keysOf(s, 'b')).toEqual(['birthday', 'one-year']);
    await s.setClock('2025-01-15T06:00:00Z');
    const event = await s.event('lessons', 'c', 1);
    expect(event.achievements.map((x: { key: string }) => x.key).sort()).toEqual(['birthday', 'loyal', 'one-year']);
    await s.setClock('2025-01-20T00:00:00Z');
    await s.workers!.testing.anniversariesNow();
    expect(await keysOf(s, 'd')).toEqual(['birthday', 'one-year']);
    await s.workers!.testing.drainNow();
    await s.workers!.testing.configCopied(s.api.services.store.current.version);
    const at = new Date(s.api.services.clock.now()).toISOString();
    const before = await readAll(s);

    await s.workers!.close();
    await s.api.close();
    await redis.wipe();
    const env = { ...redis.env, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey };
    const pool = await connectPostgres(s.settings);
    try {
      const result = await restoreWith(loadSettings({ ...process.env, ...env }), log, pool, false);
      expect(result).toMatchObject({ failed: 0 });
      expect(result.replayed).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }

    s = await startTestServer({ clock: 'manual', env });
    await s.setClock(at);
    expect(await readAll(s)).toEqual(before);
    // The workers once the manual clock is set (their pass each second beside the ones asked for
    // here): the due sets rebuilt, nothing completed again.
    const workers = await startWorkers(s.settings, log, s.api.services);
    cleanups.push(() => workers.close());
    await workers.testing.anniversariesNow();
    expect(await readAll(s)).toEqual(before);
    // The anniversaries to come: a's second (a user of the snapshot), e's first (created after
    // it), each at the start of its day, not before.
    await s.setClock('2026-01-09T23:59:59.999Z');
    await workers.testing.anniversariesNow();
    expect(await keysOf(s, 'a')).toEqual(['birthday', 'one-year']);
    await s.setClock('2026-01-10T00:00:00Z');
    await workers.testing.anniversariesNow();
    expect(await keysOf(s, 'a')).toEqual(['birthday', 'one-year', 'two-years']);
    await s.setClock('2026-01-11T12:00:00Z');
    await workers.testing.anniversariesNow();
    expect(await keysOf(s, 'e')).toEqual(['birthday', 'one-year']);
    for (const user of ['b', 'c', 'd']) expect(await keysOf(s, user), user).toEqual((before[`/api/users/${user}/achievements?includeIncomplete=true`] as { body: { key: string; achievedAt: string | null }[] }).body.filter((x) => x.achievedAt !== null).map((x) => x.key).sort());
  });
});
