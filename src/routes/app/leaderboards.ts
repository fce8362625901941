/**
 * Leaderboard reads of the Application API: the boards users see, a board's rankings (a page, a
 * past run, the window around a user, a friends board), and a user's rank with its daily history;
 * each with the run's participants and the user's percentile (docs/api.md, "Boards without a cap").
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { boardUser, finalisedRun, friendsBoard, rankingPage, userPlace } from '../../engine/leaderboards/read.js';
import { groupToRead } from '../../engine/leaderboards/read-group.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { cohortOfQuery, runFor as runOfQuery, visibleBoard } from '../../engine/leaderboards/board-of-query.js';
import { COHORT_QUERY } from '../../domain/leaderboards/league.js';
import { boardView, groupName, leaderboardStatus } from '../../domain/leaderboards/runs.js';
import { capOf } from '../../domain/leaderboards/cap.js';
import { dailyHistory } from '../../domain/leaderboards/rank-history.js';
import { DATE_SCHEMA } from '../../domain/time.js';
import { userTime } from '../../domain/clock.js';
import { checkUserId, listedUserIds, setPair, USER_ATTRIBUTES_QUERY, USER_ID_PARAM, userIdSchema, userIdsOf } from '../../domain/users.js';
import { shardsOf } from '../../domain/leaderboards/shards.js';
import type { Leaderboard } from '../../model/entities.js';
import type { LeaderboardRunView, UserLeaderboardView } from '../../model/views.js';

const BOARD = { key: { schema: { type: 'string' }, description: 'The leaderboard\'s key' } };
const RUN = { name: 'run', schema: DATE_SCHEMA, description: 'Any day of the run, YYYY-MM-DD' };
/** The users a friends board may list. */
export const MAX_FRIENDS = 1000;
/** User × shard pairs of a friends board that count as one request against a key's rate limit. */
const PAIRS_A_REQUEST = 1000;

/** `userAttributes=key:value[,key:value]` as pairs; a key given twice with two values is refused (422). */
function pairsOf(raw: string | null): Map<string, string> {
  const given = new Map<string, string>();
  for (const part of (raw ?? '').split(',')) {
    const i = part.indexOf(':');
    if (i > 0) setPair(given, part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  return given;
}

export function leaderboardRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;

  const boardOf = (key: string) => visibleBoard(deps, key);
  const runFor = (lb: Leaderboard, raw: string | null, today?: string) => runOfQuery(deps, lb, raw, today);

  /**
   * The breakdown group a query names: `userAttributes=key:value[,key:value]` with a value for each
   * of the board's breakdown attributes ('' for a board without). Keys are attribute keys.
   */
  function groupOf(lb: Leaderboard, raw: string | null): string {
    if (lb.breakdownAttributes.length === 0) return '';
    const given = pairsOf(raw);
    const snapshot = store.current;
    const values = lb.breakdownAttributes.map((id) => {
      const key = snapshot.attributes.get(id)?.key ?? id;
      const v = given.get(key);
      if (v === undefined) throw fail('invalid_query', `userAttributes must give ${key}:<value>: leaderboard "${lb.key}" ranks its users by ${key}`);
      return v;
    });
    return groupName(values);
  }

  return [
    {
      method: 'get', path: '/leaderboards', family: 'app', subject: 'shared',
      doc: {
        summary: 'The leaderboards users see, with their status',
        query: [{ name: 'includeFinished', schema: { type: 'boolean', default: false }, description: 'true adds finished boards' }],
        success: [200], malformed: 422,
      },
      handler: (req) => {
        const includeFinished = queryOf(req).bool('includeFinished');
        const snapshot = store.current;
        const now = clock.now();
        const list = [];
        for (const lb of snapshot.leaderboards.values()) {
          const status = leaderboardStatus(lb, now);
          if (status === 'inactive' || (status === 'finished' && !includeFinished)) continue;
          list.push(boardView(lb, snapshot, status));
        }
        return ok(list);
      },
    },
    {
      method: 'get', path: '/leaderboards/:key', family: 'app', subject: 'shared',
      // A friends board on a board of several shards counts each user in every shard (docs/api.md,
      // "Shards"): it counts a request for every 1,000 users × shards (1,000 users on 64 shards:
      // 64) against its key's rate limit; every other read, one.
      weight: (req) => {
        const lb = store.current.leaderboardsByKey.get(req.params[0]);
        const shards = lb === undefined ? 1 : shardsOf(lb);
        if (shards <= 1) return 1;
        const users = Math.min(userIdsOf(new URLSearchParams(req.query).getAll('userIds')).length, MAX_FRIENDS);
        return Math.max(1, Math.ceil((users * shards) / PAIRS_A_REQUEST));
      },
      doc: {
        summary: 'A leaderboard with a page of its rankings', params: BOARD,
        query: [
          {
            name: 'offset', schema: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
            description: 'Negative only with userId: places above the user (from the top at most)',
          },
          { name: 'limit', schema: { type: 'integer', minimum: 0, maximum: 1000, default: 10 }, description: 'At most the board\'s size' },
          RUN,
          { name: 'userId', schema: userIdSchema, description: 'The offset counts from this user' },
          {
            name: 'userIds', schema: { type: 'array', maxItems: MAX_FRIENDS, items: userIdSchema },
            description: `A friends board: these users (at most ${MAX_FRIENDS}; repeated, or once separated by commas) ranked among themselves; offset, limit and userId do not apply`,
          },
          { name: 'userAttributes', schema: USER_ATTRIBUTES_QUERY.schema, description: 'The breakdown group, key:value pairs separated by commas' },
          COHORT_QUERY,
        ],
        success: [200], refusals: [404], malformed: 422,
      },
      handler: async (req) => {
        const lb = boardOf(req.params[0]);
        const q = queryOf(req);
        const offset = q.int('offset');
        // At most the board's size: a larger limit reads the whole board.
        const limit = Math.min(q.int('limit'), capOf(lb));
        const around = q.get('userId');
        const friends = q.getAll('userIds').length === 0 ? null : listedUserIds(q.getAll('userIds'), MAX_FRIENDS);
        if (offset < 0 && around === null && friends === null) {
          throw fail('invalid_query', 'offset may be negative only with userId: it then counts from that user\'s place');
        }
        const run = runFor(lb, q.get('run'));
        const { tenant, user } = principalOf(req);
        const rawCohort = q.get('cohort');
        const rawGroup = q.get('userAttributes');
        // A key scoped to a user reads its own user's group (src/engine/leaderboards/read-group.ts);
        // the pairs it gives are still checked as anyone's.
        if (user !== null) pairsOf(rawGroup);
        // One cohort of a league: its own ranking (src/routes/app/leagues.ts).
        const [cohort, group] = await Promise.all([
          rawCohort === null ? undefined : cohortOfQuery(deps, tenant, lb, run.start, rawCohort),
          groupToRead(deps, tenant, lb, user, () => groupOf(lb, rawGroup)),
        ]);
        const ref = { tenant, lb, run: run.start, group: group ?? '', cohort };
        const [read, outcome] = group === null
          // The key's user is in no group: nobody to show.
          ? [friends !== null ? { rankings: [], participants: 0 } : { rankings: [], participants: 0, around: null }, { ...(await finalisedRun(deps, ref)), winners: null }]
          : await Promise.all([
            friends !== null ? friendsBoard(deps, ref, friends) : rankingPage(deps, ref, offset, limit, around),
            // Once the workers finalised the run: when, and its winners (laurel's addition).
            finalisedRun(deps, ref),
          ]);
        const snapshot = store.current;
        const answer: LeaderboardRunView = { rankings: read.rankings, participants: read.participants, run: run.start, runEnd: run.end, ...outcome };
        // A cohort's: its id, and no winners (the run's are the whole board's).
        if (cohort !== undefined && rawCohort !== null) Object.assign(answer, { cohort: rawCohort, winners: null });
        // Around a user: their percentile (null when off the board).
        if (around !== null && 'around' in read) answer.percentile = read.around?.percentile ?? null;
        return ok({ ...boardView(lb, snapshot, leaderboardStatus(lb, clock.now())), ...answer });
      },
    },
    {
      method: 'get', path: '/users/:id/leaderboards/:key', family: 'app', subject: 'path',
      doc: {
        summary: 'The user\'s rank and value on a leaderboard, with the history of their changes', params: { id: USER_ID_PARAM, ...BOARD },
        query: [RUN, { name: 'numEvents', schema: { type: 'integer', minimum: 0, maximum: 100, default: 10 }, description: 'History days, the latest' }],
        success: [200], malformed: 422,
      },
      handler: async (req) => {
        const id = req.params[0];
        checkUserId(id);
        const lb = boardOf(req.params[1]);
        const q = queryOf(req);
        const days = q.int('numEvents');
        const rawRun = q.get('run');
        const given = runFor(lb, rawRun);
        const tenant = principalOf(req).tenant;
        // A run named, or a board of one run, without breakdown groups: the place is read with the
        // user, not after (one round trip where the place needs the user's zone or group).
        const ahead = (rawRun !== null || lb.runUnit === null) && lb.breakdownAttributes.length === 0
          ? userPlace(deps, { tenant, lb, run: given.start, group: '' }, id, days > 0) : null;
        // Read whatever the user turns out to be (an unknown one is 404 after it).
        ahead?.catch(() => undefined);
        const user = await boardUser(deps, tenant, lb, id);
        if (user === null) throw fail('user_not_found', id);
        // Without a run, the run of the user's own date: the one their events count in.
        const run = ahead !== null ? given : runFor(lb, rawRun, userTime(user.tz, user.clock, clock.now()).date);
        // The whole stored history (at most 100 changes): days are made of it.
        const { rank, value, participants, percentile, changes } = user.group === null
          ? { rank: null, value: null, participants: null, percentile: null, changes: [] }
          : await (ahead ?? userPlace(deps, { tenant, lb, run: run.start, group: user.group }, id, days > 0));
        // Days in the user's zone now, as their run is chosen.
        const history = dailyHistory(changes, user.tz, days);
        const answer: UserLeaderboardView = {
          ...boardView(lb, store.current, leaderboardStatus(lb, clock.now())), rank, value, participants, percentile, history, run: run.start, runEnd: run.end,
        };
        return ok(answer);
      },
    },
  ];
}
