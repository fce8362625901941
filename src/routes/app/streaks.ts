/**
 * Streaks in the Application API: a user's streak with history and rank, several users' streaks,
 * and the rankings.
 */
import { MAX_HISTORY, streakHistory } from '../../domain/streaks/history.js';
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { activeRank, streakRankingPage, userHashes, userWithHistory } from '../../engine/streaks/read.js';
import { userTimeOf } from '../../domain/clock.js';
import { currentPeriod, periodEnd, periodStart } from '../../domain/periods.js';
import { FREQUENCY_LETTER, lastExtended, pausesOf, stateFromHash, streakView } from '../../domain/streaks/state.js';
import { checkUserId, listedUserIds, USER_ID_PARAM, userIdSchema } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Request, Route } from '../../http/server.js';
import type { UserStreakView } from '../../model/views.js';

export const MAX_USER_IDS = 100;

export function streakRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;

  async function userStreak(req: Request) {
    const answer = (view: UserStreakView) => ok(view);
    const { tenant } = principalOf(req);
    const id = req.params[0];
    checkUserId(id);
    const count = queryOf(req).int('historyPeriods');
    const rule = store.current.streak;
    const read = await userWithHistory(deps, tenant, id);
    if (read === null) throw fail('user_not_found', id);
    const { user: h, history } = read;
    if (rule === null) return answer({ ...streakView(null, null, 0), extended: null, streakHistory: [], rank: null, pauses: [] });
    const t = userTimeOf(h, clock.now());
    const { day, period } = currentPeriod(rule.frequency, t);
    const state = stateFromHash(h, rule, day, period, t.jumped);
    const view = streakView(rule, state, period);
    const rank = view.length > 0 ? await activeRank(deps, tenant, id) : null;
    const pauses = pausesOf(h);
    const upcoming = pauses.filter(([f, , last]) => f === FREQUENCY_LETTER[rule.frequency] && last >= period)
      .map(([, first, last, pauseId]) => ({ id: pauseId, start: periodStart(rule.frequency, first), end: periodEnd(rule.frequency, last) }));
    return answer({
      ...view, extended: lastExtended(h, view.length), streakHistory: streakHistory(rule, state, history, period, count, pauses),
      rank, pauses: upcoming,
    });
  }

  async function several(req: Request) {
    const { tenant } = principalOf(req);
    const userIds = listedUserIds(queryOf(req).getAll('userIds'), MAX_USER_IDS);
    const rule = store.current.streak;
    const now = clock.now();
    const hashes = await userHashes(deps, tenant, userIds);
    const items = userIds.map((userId, i) => {
      const h = hashes[i];
      if (rule === null || h.id === undefined) return { userId, streakLength: 0, extended: null };
      const t = userTimeOf(h, now);
      const { day, period } = currentPeriod(rule.frequency, t);
      const length = streakView(rule, stateFromHash(h, rule, day, period, t.jumped), period).length;
      return { userId, streakLength: length, extended: lastExtended(h, length) };
    });
    items.sort((a, b) => b.streakLength - a.streakLength);
    return ok(items);
  }

  async function rankings(req: Request) {
    const { tenant } = principalOf(req);
    const q = queryOf(req);
    const limit = q.int('limit');
    // One of the schema's values, checked by queryOf (src/http/query.ts).
    const type = q.get('type') ?? 'active';
    return ok(await streakRankingPage(deps, tenant, type === 'longest' ? 'longest' : 'active', limit));
  }

  return [
    {
      method: 'get', path: '/users/:id/streak', family: 'app', subject: 'path', handler: userStreak,
      doc: {
        summary: 'The user\'s streak with its history and rank', params: { id: USER_ID_PARAM },
        query: [{ name: 'historyPeriods', schema: { type: 'integer', minimum: 0, maximum: MAX_HISTORY, default: 7 }, description: 'Periods of history' }],
        success: [200], malformed: 422,
      },
    },
    {
      method: 'get', path: '/streaks', family: 'app', subject: 'userIds', handler: several,
      doc: {
        summary: 'Several users\' streak lengths, longest first',
        query: [{
          name: 'userIds', required: true, schema: { type: 'array', minItems: 1, maxItems: MAX_USER_IDS, items: userIdSchema },
          description: 'Repeated, one id each; or once, the ids separated by commas',
        }],
        success: [200], malformed: 422,
      },
    },
    {
      method: 'get', path: '/streaks/rankings', family: 'app', subject: 'shared', handler: rankings,
      doc: {
        summary: 'The longest streaks: active ones, or the longest ever',
        query: [
          { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
          { name: 'type', schema: { enum: ['active', 'longest'], default: 'active' } },
        ],
        success: [200], malformed: 422,
      },
    },
  ];
}
