/**
 * The admin summary of a league's run a page of cohorts at a time (docs/api.md, "Leagues"), on
 * single Redis and on the Cluster: 30 users in eight cohorts of three tiers (placed through the
 * event path, the silver and gold ones carrying their tier from the run before), read whole and
 * then page by page with limits of 1 to 8: each page at most `limit` cohorts in tier and cohort
 * order, every tier listed with its cohort count and the page's participants, the pages together
 * the whole summary, each cohort once, `next` null on the last page (never an empty page after
 * it); a cursor that names no cohort and a limit out of range refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { leagueField, leagueText } from '../../src/redis/leagues.js';

const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 2, demote: 0 },
  { key: 'silver', name: 'Silver', promote: 1, demote: 1 },
  { key: 'gold', name: 'Gold', promote: 0, demote: 2 },
];
/** Users per tier in the run read: cohorts of 5 make 3 + 3 + 2. */
const PLAYERS = { bronze: 13, silver: 11, gold: 6 };
const COHORTS = ['bronze-1', 'bronze-2', 'bronze-3', 'silver-1', 'silver-2', 'silver-3', 'gold-1', 'gold-2'];
const SIZES = [5, 5, 3, 5, 5, 1, 5, 1];

describe.each(targets())('the league summary\'s pages on %s', (target) => {
  let s: TestServer;
  let league: { id: string };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    league = await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'League', key: 'league', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
      league: { tiers: TIERS, cohortSize: 5 },
    });
    const { redis, keys } = s.api!.services;
    for (const [tier, [name, count]] of Object.entries(PLAYERS).entries()) {
      for (let i = 1; i <= count; i++) {
        const id = `${name}-${i}`;
        if (tier > 0) {
          // The tier the run before's outcome left them in.
          const r = await s.request('POST', '/v1/users', { body: { id } });
          expect([200, 201], r.text).toContain(r.status);
          await redis.hset(keys.forUser('_', id).user, leagueField(league.id), leagueText({ tier, run: '2026-05-03', cohort: 0 }));
        }
        await s.event('plays', id, i);
      }
    }
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const summary = async (query: string) => {
    const r = await s.request('GET', `/admin/v1/leaderboards/${league.id}/league${query}`);
    expect(r.status, `${query}: ${r.text}`).toBe(200);
    return r.body;
  };

  it('answers every cohort on one page when they fit', async () => {
    const whole = await summary('');
    expect(whole.next).toBeNull();
    expect(whole.tiers.map((t: any) => [t.key, t.cohortCount, t.participants])).toEqual([['bronze', 3, 13], ['silver', 3, 11], ['gold', 2, 6]]);
    expect(whole.tiers.flatMap((t: any) => t.cohorts.map((c: any) => [c.cohort, c.participants]))).toEqual(COHORTS.map((c, i) => [c, SIZES[i]]));
  });

  it('pages the cohorts in tier and cohort order, each once, whatever the limit', async () => {
    for (let limit = 1; limit <= 8; limit++) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: any = await summary(`?run=2026-05-04&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        pages++;
        const cohorts = page.tiers.flatMap((t: any) => t.cohorts);
        // A page holds `limit` cohorts but the last, which holds the rest, never none.
        expect(cohorts.length).toBe(Math.min(limit, COHORTS.length - seen.length));
        // Every tier on every page, with every cohort it opened counted, and the page's participants.
        expect(page.tiers.map((t: any) => [t.key, t.cohortCount])).toEqual([['bronze', 3], ['silver', 3], ['gold', 2]]);
        for (const t of page.tiers) {
          expect(t.participants).toBe(t.cohorts.reduce((sum: number, c: any) => sum + c.participants, 0));
          expect(t.cohorts.every((c: any) => c.cohort.startsWith(`${t.key}-`))).toBe(true);
        }
        seen.push(...cohorts.map((c: any) => c.cohort));
        cursor = page.next;
      } while (cursor !== null);
      expect(seen, `limit ${limit}`).toEqual(COHORTS);
      expect(pages).toBe(Math.ceil(COHORTS.length / limit));
    }
  });

  it('starts a page at the cohort its cursor names', async () => {
    const first = await summary('?limit=4');
    expect(first.tiers.flatMap((t: any) => t.cohorts.map((c: any) => c.cohort))).toEqual(COHORTS.slice(0, 4));
    const second = await summary(`?limit=4&cursor=${encodeURIComponent(first.next)}`);
    expect(second.tiers.flatMap((t: any) => t.cohorts.map((c: any) => c.cohort))).toEqual(COHORTS.slice(4));
    expect(second.tiers.map((t: any) => t.participants)).toEqual([0, 6, 6]);
    expect(second.next).toBeNull();
  });

  it('refuses a cursor that names no cohort and a limit out of range', async () => {
    for (const query of ['?cursor=abc', '?cursor=3.0', '?cursor=-1.0', '?cursor=1.x', '?limit=0', '?limit=1001', '?limit=two']) {
      const r = await s.request('GET', `/admin/v1/leaderboards/${league.id}/league${query}`);
      expect(r.status, `${query}: ${r.text}`).toBe(422);
      expect(r.body, query).toMatchObject({ code: 'invalid_query', error: expect.any(String) });
    }
    // A cursor past the tier's cohorts (a run read before, now shorter) answers the tiers after it.
    const past = await summary('?cursor=0.9');
    expect(past.tiers.flatMap((t: any) => t.cohorts.map((c: any) => c.cohort))).toEqual(COHORTS.slice(3));
  });
});
