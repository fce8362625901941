/**
 * A key scoped to a user reads a breakdown board's rankings of its own user's group only, whatever
 * `userAttributes` it names (docs/api.md, "Keys scoped to one user"): another group's friends
 * board, page or window would tell the device which users hold that group's values. On a board of
 * one ranking a group and on one of 3 shards, on Redis and on the Cluster: a device of a `free`
 * user asking for `plan:pro` gets the `free` group's rankings; a user in no group gets nobody; the
 * pairs it names are still checked (two values of one key: 422); an account's key reads the group
 * it names.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';
import { eventually } from '../support/eventually.js';

const PLANS: Record<string, string | null> = { ada: 'pro', bea: 'pro', cy: 'free', dee: 'free', eve: null };

describe.each(targets())('a key scoped to a user on a breakdown board, on %s', (target) => {
  const s = useTestServer({ target });
  const keyOf: Record<string, string> = {};
  const ids = Object.keys(PLANS);

  beforeAll(async () => {
    const { plays } = await s.metrics('plays');
    const { plan } = await s.attributes('user', 'plan');
    const common = { rankBy: 'metric', metricId: plays, breakdownAttributes: [plan], status: 'active', start: '2020-01-01' };
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ ...common, name: 'By plan', key: 'by-plan' }, { ...common, name: 'By plan, sharded', key: 'by-plan-shards', maxParticipants: null, shards: 3 }],
    });
    expect(boards.status, boards.text).toBe(201);
    for (const [i, id] of ids.entries()) {
      await s.event('plays', { id, name: `Player ${id}`, ...(PLANS[id] === null ? {} : { attributes: { plan: PLANS[id] } }) }, 10 - i);
    }
    const keys = await s.request('POST', '/admin/v1/application-api-keys', { body: ids.map((userId) => ({ userId })) });
    expect(keys.status, keys.text).toBe(201);
    for (const k of keys.body.created as { userId: string; key: string }[]) keyOf[k.userId] = k.key;
    // Placements follow the answers.
    for (const board of ['by-plan', 'by-plan-shards']) {
      await eventually(async () => {
        const r = await s.request('GET', `/api/leaderboards/${board}?userAttributes=plan:free`);
        expect(r.body.rankings.map((x: { userId: string }) => x.userId)).toEqual(['cy', 'dee']);
      });
    }
  });

  const users = (r: { body: { rankings: { userId: string }[] } }) => r.body.rankings.map((x) => x.userId);

  for (const board of ['by-plan', 'by-plan-shards']) {
    it(`answers its own group's friends board, page and window on ${board}, whatever group it names`, async () => {
      const friends = await s.request('GET', `/api/leaderboards/${board}?userAttributes=plan:pro&userIds=ada,bea,cy,dee`, { key: keyOf.cy });
      expect(friends.status, friends.text).toBe(200);
      expect(users(friends)).toEqual(['cy', 'dee']);
      expect(friends.body.participants).toBe(2);
      for (const q of ['userAttributes=plan:pro', 'userAttributes=plan:free', '']) {
        const page = await s.request('GET', `/api/leaderboards/${board}?${q}`, { key: keyOf.cy });
        expect(page.status, `${q}: ${page.text}`).toBe(200);
        expect(users(page)).toEqual(['cy', 'dee']);
      }
      // Around a user of another group: not in its group, so no rows.
      const around = await s.request('GET', `/api/leaderboards/${board}?userAttributes=plan:pro&userId=ada&offset=-1&limit=3`, { key: keyOf.cy });
      expect(around.status, around.text).toBe(200);
      expect(users(around)).toEqual([]);
      expect(around.body.percentile).toBeNull();
      // A pro user's key reads the pro group, asking for free.
      expect(users(await s.request('GET', `/api/leaderboards/${board}?userAttributes=plan:free&userIds=ada,bea,cy,dee`, { key: keyOf.ada }))).toEqual(['ada', 'bea']);
      // An account's key reads the group it names.
      expect(users(await s.request('GET', `/api/leaderboards/${board}?userAttributes=plan:pro&userIds=ada,bea,cy,dee`))).toEqual(['ada', 'bea']);
    });
  }

  it('answers nobody to a user in no group, and checks the pairs it names', async () => {
    const none = await s.request('GET', '/api/leaderboards/by-plan?userAttributes=plan:pro&userIds=ada,bea,cy,dee', { key: keyOf.eve });
    expect(none.status, none.text).toBe(200);
    expect(none.body).toMatchObject({ rankings: [], participants: 0, winners: null });
    const page = await s.request('GET', '/api/leaderboards/by-plan?userAttributes=plan:pro', { key: keyOf.eve });
    expect(page.body).toMatchObject({ rankings: [], participants: 0 });
    const twice = await s.request('GET', '/api/leaderboards/by-plan?userAttributes=plan:pro,plan:free', { key: keyOf.cy });
    expect(twice.status, twice.text).toBe(422);
    expect(twice.body.code).toBe('invalid_query');
  });
});
