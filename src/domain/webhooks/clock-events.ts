/**
 * The webhook events the service's clock gives rather than the log (docs/webhooks.md), with ids
 * that name the occasion, so a pass that records one again records nothing:
 * - `points.boost_started` / `points.boost_finished`: on the UTC day a boost starts, and the day
 *   after its last (a boost's days are each user's local days; the event marks the UTC one);
 * - `leaderboard.started`: at 10:00 UTC the day before a run starts;
 * - `leaderboard.finished`: when the leaderboards worker finalises a run, with its top 10
 *   (src/engine/leaderboards/finalise.ts);
 * - `league.promoted` / `league.demoted` / `league.stayed`: when it finalises a league's run, one
 *   per user of each cohort (src/engine/leaderboards/league-final.ts).
 * An occasion more than a day past is not sent (an endpoint added today hears nothing of last year).
 */
import { eventId, type WebhookEvent } from './events.js';
import { cohortId, tierView } from '../leaderboards/league.js';
import { boardView, runOf } from '../leaderboards/runs.js';
import { boostView } from '../points/rules.js';
import { localDay } from '../time.js';
import type { League, Leaderboard, WebhookType } from '../../model/entities.js';
import type { UserView } from '../../model/views.js';
import type { Snapshot } from '../../model/snapshot.js';

const DAY_MS = 86_400_000;

const dateOf = (ms: number) => localDay('UTC', ms);
const startOfUtcDay = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** The events of the boosts and of the runs about to start, due at `now`. */
export function clockEvents(prefix: string, snapshot: Snapshot, now: number, wanted: ReadonlySet<WebhookType>): WebhookEvent[] {
  const out: WebhookEvent[] = [];
  const add = (type: WebhookType, idParts: (string | number)[], at: number, payload: Record<string, unknown>) => {
    if (!wanted.has(type) || at > now || now - at > DAY_MS) return;
    out.push({ type, id: eventId([prefix, type, ...idParts]), tenant: '', userId: '', body: JSON.stringify({ type, ...payload }), at, coalesce: false });
  };
  const today = dateOf(now);
  for (const b of snapshot.pointsBoosts.values()) {
    const system = snapshot.pointsSystems.get(b.systemId);
    const boost = {
      ...boostView(b, today), userId: b.userId, pointsSystemId: b.systemId, pointsSystemKey: system?.key ?? null, pointsSystemName: system?.name ?? null,
    };
    const started = startOfUtcDay(b.start);
    add('points.boost_started', [b.id, b.start], started, { timestamp: new Date(started).toISOString(), boost });
    if (b.end !== null) {
      const finished = startOfUtcDay(b.end) + DAY_MS;
      add('points.boost_finished', [b.id, b.end], finished, { timestamp: new Date(finished).toISOString(), boost });
    }
  }
  const tomorrow = dateOf(now + DAY_MS);
  for (const lb of snapshot.leaderboards.values()) {
    if (lb.status === 'inactive' || lb.status === 'finished') continue;
    const run = runOf(lb, tomorrow);
    if (run === null || run.start !== tomorrow) continue;
    add('leaderboard.started', [lb.id, run.start], startOfUtcDay(today) + 10 * 3_600_000, {
      leaderboard: { ...boardView(lb, snapshot, 'scheduled', run), rankings: [] },
    });
  }
  return out;
}

/** A ranking as the payloads give it. */
export interface RankedUser {
  userId: string;
  rank: number;
  value: number;
}

/** `leaderboard.finished` of a run (and breakdown group) of a tenant, with its top 10. */
export function finishedEvent(
  prefix: string, snapshot: Snapshot, tenant: string, lb: Leaderboard, run: { start: string; end: string | null }, group: string,
  rankings: RankedUser[], at: number,
): WebhookEvent {
  const type = 'leaderboard.finished';
  return {
    type, id: eventId([prefix, type, tenant, lb.id, run.start, group]), tenant, userId: '', at, coalesce: false,
    body: JSON.stringify({
      type, leaderboard: { ...boardView(lb, snapshot, 'finished', run), ...(group === '' ? {} : { breakdownAttributeValue: group }), rankings },
    }),
  };
}

/** A user's outcome in a league's cohort when its run is final. */
export interface LeagueMove {
  outcome: 'promoted' | 'demoted' | 'stayed';
  tier: number;
  cohort: number;
  rank: number;
  value: number;
  participants: number;
}

/** The `league.<outcome>` event type of an outcome. */
export function leagueEventType(outcome: LeagueMove['outcome']): WebhookType {
  return `league.${outcome}`;
}

/**
 * `league.promoted`, `league.demoted` or `league.stayed` of a user in a league's run of a tenant:
 * the run's tier and cohort, the user's rank and value there, and the tier of the next run they join.
 */
export function leagueEvent(
  prefix: string, tenant: string, lb: Leaderboard & { league: League }, run: { start: string; end: string | null }, user: UserView,
  move: LeagueMove, at: number,
): WebhookEvent {
  const type = leagueEventType(move.outcome);
  const { league } = lb;
  const next = Math.max(0, Math.min(league.tiers.length - 1, move.tier + (move.outcome === 'promoted' ? 1 : move.outcome === 'demoted' ? -1 : 0)));
  return {
    type, id: eventId([prefix, type, tenant, lb.id, run.start, user.id]), tenant, userId: user.id, at, coalesce: false,
    body: JSON.stringify({
      type, user,
      league: {
        leaderboardId: lb.id, key: lb.key, name: lb.name, run: run.start, runEnd: run.end, tier: tierView(league, move.tier),
        cohort: cohortId(league, move.tier, move.cohort), rank: move.rank, value: move.value, participants: move.participants,
        outcome: move.outcome, nextTier: tierView(league, next),
      },
    }),
  };
}
