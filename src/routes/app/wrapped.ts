/**
 * `GET users/{id}/wrapped`: a user's year in review (src/domain/wrapped.ts says what it counts).
 * A read only: it reads the user's hashes, the streak history and the rank histories of the
 * boards' runs in the year, and writes nothing (time-trigger points due are accrued first, as
 * every points read does).
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { boardView, breakdownGroup, groupName, leaderboardStatus, runOf, runStart } from '../../domain/leaderboards/runs.js';
import { parseRankChange } from '../../domain/leaderboards/rank-history.js';
import { attributeField, completionField } from '../../model/fields.js';
import { userAchievementView, visibleTo, withStats } from '../../domain/achievements.js';
import { userTimeOf } from '../../domain/clock.js';
import { currentPeriod, dayIndexOf, periodEnd, periodOfDay, periodStart } from '../../domain/periods.js';
import { pausesOf, stateFromHash } from '../../domain/streaks/state.js';
import { CALENDAR_LAST, localDay } from '../../domain/time.js';
import { dayValues } from '../../domain/summary.js';
import { isControl } from '../../domain/notifications/rules.js';
import { checkUserId, USER_ID_PARAM, userView, type UserHash } from '../../domain/users.js';
import { monthRange, wrappedActivity, yearRange, type MetricDays, type PointsDays, type RankEntry } from '../../domain/wrapped.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { accrueTime } from '../../engine/points/time-awards.js';
import { rankChanges, wrappedHashes } from '../../engine/wrapped/read.js';
import { addPercentiles } from '../../engine/wrapped/percentiles.js';
import type { Leaderboard } from '../../model/entities.js';
import { streakHistory } from '../../domain/streaks/history.js';

/** The first year laurel answers: it counts days from the epoch (src/domain/periods.ts). */
export const FIRST_YEAR = 1970;
/** The last year of laurel's calendar. */
const LAST_YEAR = Number(CALENDAR_LAST.slice(0, 4));

/** The runs of a board with a day in [first, last]. */
function runsIn(lb: Leaderboard, first: string, last: string): { start: string; end: string | null }[] {
  if (lb.start > last) return [];
  const runs: { start: string; end: string | null }[] = [];
  let run = runOf(lb, lb.start > first ? lb.start : first);
  while (run !== null && run.start <= last) {
    runs.push(run);
    if (lb.runUnit === null || lb.runInterval === null || run.end === null) break;
    run = runOf(lb, runStart(lb, run.k + 1));
  }
  return runs;
}

/** Whether `days` holds a day from `first` to `last`. */
function holdsDay(days: Map<string, number>, first: string, last: string): boolean {
  for (const day of days.keys()) if (day >= first && day <= last) return true;
  return false;
}

export function wrappedRoutes(deps: Deps): Route[] {
  const { store, clock, stats } = deps;

  return [{
    method: 'get', path: '/users/:id/wrapped', family: 'app', subject: 'path',
    doc: {
      summary: 'The user\'s year in review', params: { id: USER_ID_PARAM },
      query: [{ name: 'year', schema: { type: 'integer', minimum: FIRST_YEAR, maximum: LAST_YEAR }, description: 'Up to the current year in the user\'s zone (the default)' }],
      success: [200], malformed: 422,
    },
    handler: async (req) => {
      const id = req.params[0];
      checkUserId(id);
      // An integer of laurel's calendar, checked by queryOf (src/http/query.ts); the current year bounds it below.
      const raw = queryOf(req).get('year');
      const tenant = principalOf(req).tenant;
      await accrueTime(deps, tenant, id);
      const snapshot = store.current;
      const metrics = [...snapshot.metrics.values()].filter((m) => m.status === 'active');
      const systems = [...snapshot.pointsSystems.values()].filter((p) => p.status === 'active');
      const read = await wrappedHashes(deps, tenant, id, metrics.map((m) => m.id), systems.map((p) => p.id));
      if (read === null) throw fail('user_not_found', id);
      const h = read.user;
      const tz = h.tz ?? '';
      const now = clock.now();
      // Today on the user's clock (src/domain/clock.ts): a year the clock reached is the current one.
      const today = userTimeOf(h, now).date;
      const current = Number(today.slice(0, 4));
      const year = raw === null ? current : Number(raw);
      if (year < FIRST_YEAR || year > current) {
        throw fail('invalid_query', `year must be an integer from ${FIRST_YEAR} to the current year (${current}), got "${raw}"`);
      }
      const first = `${year}-01-01`;
      const last = `${year}-12-31` < today ? `${year}-12-31` : today;

      const metricDays: MetricDays[] = metrics.map((m, i) => ({ key: m.key, name: m.name, units: m.units, days: dayValues(read.metrics[i]) }));
      const pointsDays: PointsDays[] = systems.map((p, i) => ({
        key: p.key, name: p.name, description: p.description, days: dayValues(read.points[i]),
      }));

      const daysById = new Map<string, Map<string, number>>([
        ...metrics.map((m, i): [string, Map<string, number>] => [m.id, metricDays[i].days]),
        ...systems.map((p, i): [string, Map<string, number>] => [p.id, pointsDays[i].days]),
      ]);

      const tenantStats = await stats.get(tenant);
      const achievements = [];
      for (const a of snapshot.achievements.values()) {
        const at = h[completionField(a.id)];
        if (at === undefined || !visibleTo(a, true)) continue;
        const ms = Date.parse(at);
        if (Number.isNaN(ms)) continue;
        achievements.push({ day: localDay(tz, ms), at, view: withStats(userAchievementView(a, snapshot, at), tenantStats) });
      }

      // Rank histories of every run in the year of each board users see, in the user's current
      // breakdown group (the history of a group the user left is not read).
      const leaderboards = new Map<string, RankEntry[]>();
      await Promise.all([...snapshot.leaderboards.values()].filter((lb) => lb.status !== 'inactive').map(async (lb) => {
        const values = breakdownGroup(lb, snapshot, (key) => h[attributeField(key)]);
        if (values === null) return;
        const group = groupName(values);
        // A placement (and so a history entry) comes from an event of the board's metric, or an
        // award of its points system, on a day of its run: only the runs holding such a day of the
        // user's are read (a daily board would be 365 reads; streak boards are perpetual).
        const days = lb.rankBy === 'metric' ? daysById.get(lb.metricId ?? '') : lb.rankBy === 'points' ? daysById.get(lb.pointsSystemId ?? '') : undefined;
        const runs = runsIn(lb, first, last).filter((run) => days === undefined || holdsDay(days, run.start, run.end ?? last));
        const lists = await rankChanges(deps, tenant, lb, runs.map((run) => run.start), group, id);
        const entries: RankEntry[] = [];
        runs.forEach((run, i) => {
          for (const e of lists[i]) {
            const { at, rank, value } = parseRankChange(e);
            if (rank === null) continue;
            entries.push({
              day: localDay(tz, at), ms: at, rank, value,
              view: { ...boardView(lb, snapshot, leaderboardStatus(lb, now)), run: run.start, runEnd: run.end },
            });
          }
        });
        if (entries.length > 0) leaderboards.set(lb.key, entries);
      }));

      const activity = wrappedActivity({ year, metrics: metricDays, points: pointsDays, achievements, leaderboards });
      const week = activity.mostActiveWeek;
      await Promise.all([
        addPercentiles(deps, tenant, h, week, { first: week.start, last: week.end }),
        addPercentiles(deps, tenant, h, activity.mostActiveMonth, monthRange(year, activity.mostActiveMonth.month)),
        addPercentiles(deps, tenant, h, activity.entireYear, yearRange(year)),
      ]);
      return ok({ user: userView(h, isControl(snapshot.notifications, tenant, h)), activity: { ...activity, entireYear: { ...activity.entireYear, longestStreak: longestStreak(h, read.history, year, now) } } });
    },
  }];

  /**
   * The longest streak reached in the year: the greatest length the streak history shows in one of
   * the year's periods, with that period and the first period of its run (`started`). Length 0
   * (and daily, without a streak rule) when there was none, its dates null (WrappedStreak requires
   * them).
   */
  function longestStreak(h: UserHash, history: Record<string, string>, year: number, now: number) {
    const rule = store.current.streak;
    const none = { periodStart: null, periodEnd: null, started: null };
    if (rule === null) return { length: 0, frequency: 'daily' as const, ...none };
    const f = rule.frequency;
    const t = userTimeOf(h, now);
    const { day, period } = currentPeriod(f, t);
    const state = stateFromHash(h, rule, day, period, t.jumped);
    const yearFirst = periodOfDay(f, dayIndexOf(`${year}-01-01`));
    const yearLast = Math.min(period, periodOfDay(f, dayIndexOf(`${year}-12-31`)));
    // From a year before the year's start, further back while the best run reaches the window's
    // first period: a run that began years before shows its start (none began before 1969).
    const lowest = periodOfDay(f, dayIndexOf(`${FIRST_YEAR - 1}-01-01`));
    let from = periodOfDay(f, dayIndexOf(`${year - 1}-01-01`));
    for (;;) {
      const items = streakHistory(rule, state, history, period, period - from + 1, pausesOf(h));
      let best = -1;
      for (let p = yearFirst; p <= yearLast; p++) {
        const i = p - from;
        if (items[i].length > 0 && (best === -1 || items[i].length > items[best].length)) best = i;
      }
      if (best === -1) return { length: 0, frequency: f, ...none };
      let start = best;
      while (start > 0 && items[start - 1].length > 0 && items[start - 1].length <= items[start].length) start--;
      if (start === 0 && from > lowest) {
        from = Math.max(lowest, from - (period - from + 1));
        continue;
      }
      return {
        length: items[best].length, frequency: f,
        periodStart: periodStart(f, from + best), periodEnd: periodEnd(f, from + best), started: periodStart(f, from + start),
      };
    }
  }
}
