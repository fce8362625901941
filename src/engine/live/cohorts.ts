/**
 * Live updates of a league's cohorts (docs/live.md, "Topics"): with each pass of a league's board
 * (src/engine/live/boards.ts), the cohorts of the users the entries read name (their place kept
 * with them: src/redis/leagues.ts) are read whole and compared with what was last published of
 * them, as a board is (src/engine/live/ranking-diff.ts), and their messages go to the league
 * topics of the cohort's members:
 * - `leaderboard.rank_changed` for each user of the cohort whose value changed by an entry read (a
 *   newcomer too), at most MOVES_PER_PASS a pass, the best ranked first, and `leaderboard.changed`
 *   with the cohort's top 10 when it changed; `leaderboard.cohort` names the cohort, `rank` is the
 *   rank in it;
 * - to `league:<key>` of each member's own key (a topic per user, src/domain/live/topics.ts
 *   leagueTopicId) and to `league:<key>:<userId>` (an account key's), where wanted, and only to
 *   members whose place kept is this cohort: a user follows the cohort of the run they last
 *   joined (until they score in a new run, the one before, which later time zones may still move).
 * While no topic of the league is wanted, its cohorts are not read. A topic per user costs a
 * publish per member who follows it; what the publisher decides here,
 * no topic string a client sends can change: no key reaches a cohort its user is not in.
 * Payloads cut to what any client key may see (src/domain/live/visibility.ts).
 */
import { cohortId, MAX_COHORT } from '../../domain/leaderboards/league.js';
import { boardView } from '../../domain/leaderboards/runs.js';
import { leagueTopicId, leagueUserTopic } from '../../domain/live/topics.js';
import { sharedMessage, type SharedMessage } from '../../domain/live/visibility.js';
import { isControl } from '../../domain/notifications/rules.js';
import { userView } from '../../domain/users.js';
import type { Leaderboard } from '../../model/entities.js';
import type { LiveBoardView } from '../../model/views.js';
import { sentTogether } from '../../redis/coalesce.js';
import { leagueField, leaguePlaceOf } from '../../redis/leagues.js';
import { placesOf } from '../../redis/rankings.js';
import type { Context } from '../context.js';
import { diffRanking, MOVES_PER_PASS, placesBefore, type Named, type SeenRankings } from './ranking-diff.js';
import { publish, scopedTopic } from './topic-store.js';
import type { WantedTopics } from './wanted.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'log'>;

export class LiveCohorts {
  private readonly deps: Deps;
  private readonly wanted: WantedTopics;
  private readonly seen: SeenRankings;
  /** Messages published (for the metrics and tests). */
  published = 0;

  constructor(deps: Deps, wanted: WantedTopics, seen: SeenRankings) {
    this.deps = deps;
    this.wanted = wanted;
    this.seen = seen;
  }

  /** The cohort of `run` each user holds (tier and number), by user; users in none of the run left out. */
  private async placesOf(tenant: string, lb: Leaderboard, run: string, users: string[]): Promise<Map<string, string>> {
    const { redis, keys } = this.deps;
    const held = await Promise.all(sentTogether(redis, () => users.map((u) => redis.hget(keys.forUser(tenant, u).user, leagueField(lb.id)))));
    const out = new Map<string, string>();
    users.forEach((u, i) => {
      const place = leaguePlaceOf(held[i]);
      if (place !== null && place.run === run) out.set(u, `${place.tier}.${place.cohort}`);
    });
    return out;
  }

  /**
   * Reads the cohorts of the users named in a league's run whose move was not seen yet (`waiting`),
   * and publishes what moved; answers the users it is done with: those seen moving, or every one
   * waiting while nobody follows the league.
   */
  async pass(tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, named: Named, waiting: string[]): Promise<string[]> {
    if (!lb.league || waiting.length === 0) return [];
    // Nobody follows a cohort of this league: nothing is read (a cohort followed again compares with what was last published of it).
    const followed = [leagueTopicId(lb.key, ''), leagueUserTopic(lb.key, '')].some((prefix) => this.wanted.anyStartingWith(scopedTopic(tenant, prefix)));
    if (!followed) return waiting;
    const cohorts = new Set((await this.placesOf(tenant, lb, run.start, waiting)).values());
    const moved: string[] = [];
    for (const cohort of cohorts) {
      const [tier, n] = cohort.split('.').map(Number);
      moved.push(...await this.passCohort(tenant, lb, run, tier, n, named));
    }
    return moved;
  }

  private async passCohort(tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, tier: number, n: number, named: Named): Promise<string[]> {
    const { redis, keys } = this.deps;
    const league = lb.league!;
    const k = keys.leagueCohort(tenant, lb.id, run.start, tier, n);
    const [flat, seen] = await Promise.all([redis.zrevrange(k.ranking, 0, MAX_COHORT - 1, 'WITHSCORES'), this.seen.of(k.live)]);
    const ranked = placesOf(flat);
    const { changes, gone, top, topChanged } = diffRanking(seen, ranked);
    const moved = this.seen.moves(k.live, changes, ranked, named);
    if (changes.length === 0 && gone.length === 0 && moved.length === 0) return [];
    // The members who follow their cohort, and whose cohort this is (not one of a later run).
    const following = new Map<string, string[]>();
    for (const r of ranked) {
      const topics = [leagueTopicId(lb.key, r.userId), leagueUserTopic(lb.key, r.userId)].filter((t) => this.wanted.has(scopedTopic(tenant, t)));
      if (topics.length > 0) following.set(r.userId, topics);
    }
    const here = following.size === 0 ? new Map<string, string>() : await this.placesOf(tenant, lb, run.start, [...following.keys()]);
    const recipients = [...following].filter(([u]) => here.get(u) === `${tier}.${n}`).flatMap(([, topics]) => topics);
    if (recipients.length > 0) {
      await placesBefore(this.deps, k, moved.filter((c) => c.previousValue === null));
      const movers = moved.slice(0, MOVES_PER_PASS);
      const snapshot = this.deps.store.current;
      const hashes = await Promise.all(sentTogether(redis, () => movers.map((c) => redis.hgetall(keys.forUser(tenant, c.userId).user))));
      const board: LiveBoardView = { ...boardView(lb, snapshot, 'active', run), cohort: cohortId(league, tier, n) };
      const messages: SharedMessage[] = [];
      movers.forEach((c, i) => {
        const h = hashes[i];
        if (h.id === undefined) return;
        messages.push(sharedMessage('leaderboard.rank_changed', {
          user: userView(h, isControl(snapshot.notifications, tenant, h)),
          leaderboard: { ...board, rank: c.rank, value: c.value, previousRank: c.previousRank, previousValue: c.previousValue },
        }));
      });
      if (topChanged && top.length > 0) messages.push(sharedMessage('leaderboard.changed', { leaderboard: { ...board, rankings: top } }));
      if (messages.length > 0) {
        await Promise.all(sentTogether(redis, () => recipients.map((topic) => publish(this.deps, tenant, topic, messages))));
        this.published += messages.length * recipients.length;
      }
    }
    await this.seen.remember(k.live, seen, changes, gone);
    return moved.map((c) => c.userId);
  }
}
