/**
 * Admin API: exporting a user (laurel's own; docs/api.md, "Exporting a user"). `GET
 * /admin/v1/users/{id}/export` answers one JSON document with everything laurel holds about the
 * user, for an access or portability request (GDPR articles 15 and 20): what Redis holds
 * (src/engine/users/export.ts userRecord), the deliveries about them, and every entry of the event
 * log about them, archived or not, written last and a chunk at a time (Reply.stream): a user with
 * a million archived events is never held in memory. A key bound to a tenant exports its own
 * tenant's users only.
 */
import type { Deps } from '../../engine/deps.js';
import { userAudit, userDeliveries, userLog, userRecord, type UserRecord } from '../../engine/users/export.js';
import { boostsOf } from '../../engine/erasure/boosts.js';
import { pointsBoostAdminView } from '../../domain/points/boosts.js';
import { MAX_HISTORY, streakHistory } from '../../domain/streaks/history.js';
import { clockView, parseClock, CLOCK_FIELD, userTimeOf } from '../../domain/clock.js';
import { currentPeriod } from '../../domain/periods.js';
import { lastExtended, pausesOf, stateFromHash, streakView } from '../../domain/streaks/state.js';
import { checkUserId, preferencesView, USER_ID_PARAM, userView } from '../../domain/users.js';
import { isControl } from '../../domain/notifications/rules.js';
import { awardId, awardView, levelOf, levelView, parseAward } from '../../domain/points/rules.js';
import { cohortId } from '../../domain/leaderboards/league.js';
import { COMPLETION_PREFIX, totalField } from '../../model/fields.js';
import { chunked } from '../../http/chunks.js';
import { principalOf } from '../../http/auth.js';
import type { Route } from '../../http/server.js';
import { fail } from '../../lib/errors.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { UserLine } from '../../engine/users/export.js';
import { notificationDeliveryView, webhookDeliveryView } from './delivery-views.js';

const nullable = (type: string) => ({ type: [type, 'null'] });
const ISO = { type: 'string', format: 'date-time' };

/** The document's schema: the OpenAPI document shows it (docs/api.md has an example). */
const EXPORT_SCHEMA = {
  type: 'object',
  required: ['exportedAt', 'user', 'clock', 'keys', 'preferences', 'metrics', 'achievements', 'streak', 'points', 'boosts', 'leaderboards',
    'leaderboardWins', 'leagues', 'notifications', 'webhookDeliveries', 'audit', 'events'],
  properties: {
    exportedAt: { ...ISO, description: 'When the document was begun (laurel\'s clock)' },
    user: { type: 'object', description: 'The profile and attributes, as GET /v1/users/{id} answers' },
    clock: {
      type: ['object', 'null'], required: ['date', 'hour', 'lastEventAt'],
      description: 'The user\'s clock (docs/api.md, "Time zones and travel"): the date and hour of the day their events reached, '
        + 'which no change of zone takes back, and when their last event came; null before their first event',
      properties: { date: { type: 'string', format: 'date' }, hour: { type: 'integer', minimum: 0, maximum: 23 }, lastEventAt: ISO },
    },
    keys: {
      type: 'array', description: 'The keys scoped to the user (POST /admin/v1/application-api-keys): each one\'s id and when it was made',
      items: { type: 'object', required: ['id', 'created'], properties: { id: { type: 'string' }, created: { type: 'string' } } },
    },
    preferences: { type: 'object', description: 'As GET /v1/users/{id}/preferences answers' },
    metrics: {
      type: 'array', description: 'Every metric the user has a total of (key and name null for one deleted since)',
      items: {
        type: 'object', required: ['id', 'key', 'name', 'total', 'days'],
        properties: {
          id: { type: 'string' }, key: nullable('string'), name: nullable('string'), total: { type: 'number' },
          days: { type: 'object', additionalProperties: { type: 'number' }, description: 'Local day (YYYY-MM-DD) -> the change that day' },
        },
      },
    },
    achievements: {
      type: 'array', description: 'Every achievement the user completed',
      items: { type: 'object', required: ['id', 'key', 'name', 'achievedAt'], properties: { id: { type: 'string' }, key: nullable('string'), name: nullable('string'), achievedAt: ISO } },
    },
    streak: {
      type: 'object', description: 'As GET /v1/users/{id}/streak answers (its last 365 periods), with the history as stored (period -> length)',
      properties: { stored: { type: 'object', additionalProperties: { type: 'string' } } },
    },
    points: {
      type: 'array', description: 'Every points system the user has a total in: the total, the level, the awards kept (the newest 100; '
        + 'every award is also in its event\'s `pa` in `events`), the total at the end of each day',
      items: {
        type: 'object', required: ['id', 'key', 'name', 'total', 'level', 'awards', 'days'],
        properties: {
          id: { type: 'string' }, key: nullable('string'), name: nullable('string'), total: { type: 'number' }, level: nullable('object'),
          awards: { type: 'array', items: { type: 'object' } }, days: { type: 'object', additionalProperties: { type: 'number' } },
        },
      },
    },
    leaderboards: {
      type: 'array', description: 'Every run (breakdown group, league cohort) of the tenant\'s boards the user is ranked in, finished ones kept too',
      items: {
        type: 'object', required: ['leaderboardId', 'key', 'name', 'run', 'group', 'cohort', 'rank', 'value', 'changes'],
        properties: {
          leaderboardId: { type: 'string' }, key: nullable('string'), name: nullable('string'), run: { type: 'string' },
          group: { type: ['array', 'null'], items: { type: 'string' }, description: 'The breakdown group\'s attribute values; null without' },
          cohort: {
            type: ['object', 'null'],
            description: 'A league cohort: its tier and number, each from 0, and its id as the league reads name it (`bronze-1`; null for a league since removed)',
            properties: { tier: { type: 'integer' }, n: { type: 'integer' }, id: nullable('string') },
          },
          rank: nullable('integer'), value: nullable('number'), changes: { type: 'array', items: { type: 'string' }, description: 'The stored rank changes, newest first' },
        },
      },
    },
    leaderboardWins: {
      type: 'array', description: 'Every finished run whose winners list the user',
      items: {
        type: 'object', required: ['leaderboardId', 'key', 'name', 'run', 'group', 'rank', 'value'],
        properties: {
          leaderboardId: { type: 'string' }, key: nullable('string'), name: nullable('string'), run: { type: 'string' }, group: { type: 'string' },
          rank: { type: 'integer' }, value: { type: 'number' },
        },
      },
    },
    leagues: {
      type: 'array', description: 'Every league the user is placed in: the tier they carry (the one of the next run they join), the run they '
        + 'last joined and their tier and cohort there',
      items: {
        type: 'object', required: ['leaderboardId', 'key', 'tier', 'tierKey', 'run', 'runTier', 'cohort', 'cohortId'],
        properties: {
          leaderboardId: { type: 'string' }, key: nullable('string'), tier: { type: 'integer' }, tierKey: nullable('string'),
          run: { type: 'string' }, runTier: { type: 'integer', description: 'The tier of the user\'s cohort in `run`' },
          cohort: { type: 'integer', description: 'The cohort\'s number in its tier, from 0' },
          cohortId: { ...nullable('string'), description: 'The cohort as the league reads name it (`bronze-1`); null for a league since removed' },
        },
      },
    },
    boosts: { type: 'array', items: { type: 'object' }, description: 'The points boosts for the user alone, as the Admin API shows a boost' },
    audit: {
      type: 'array', description: 'The audit log\'s entries about the user (as GET /admin/v1/audit lists them): those whose ids name them, or '
        + 'whose body names them (an object of theirs, their email or device tokens, their name)',
      items: {
        type: 'object', required: ['id', 'at', 'operation', 'ids', 'body'],
        properties: { id: { type: 'string' }, at: ISO, operation: { type: 'string' }, ids: { type: 'array', items: { type: 'string' } }, body: {} },
      },
    },
    notifications: { type: 'array', items: { type: 'object' }, description: 'The notification deliveries to the user, as GET /admin/v1/notifications/deliveries lists them' },
    webhookDeliveries: { type: 'array', items: { type: 'object' }, description: 'The webhook deliveries about the user, as GET /admin/v1/webhooks/{id}/deliveries lists them (7 days kept)' },
    events: {
      type: 'array', description: 'Every entry of the event log about the user, oldest first: events, identifications, API completions, '
        + 'time awards, preferences, streak operations, corrections; archived or still in Redis only. `body` is the entry as stored '
        + '(docs/data-model.md, "The event log").',
      items: {
        type: 'object', required: ['id', 'kind', 'at', 'body'],
        properties: { id: { type: 'string' }, kind: { type: 'string' }, at: { type: ['string', 'null'], format: 'date-time' }, body: { type: 'object' } },
      },
    },
  },
};

/** The document's parts before `events`, each a `"name":value` member. */
function recordMembers(r: UserRecord, tenant: string, snapshot: Snapshot, now: number): Record<string, unknown> {
  const h = r.user;
  const metrics = [...r.metricDays].map(([id, days]) => {
    const m = snapshot.metrics.get(id);
    return { id, key: m?.key ?? null, name: m?.name ?? null, total: Number(h[totalField(id)] ?? 0), days };
  });
  const achievements = Object.keys(h).filter((f) => f.startsWith(COMPLETION_PREFIX)).map((f) => {
    const id = f.slice(COMPLETION_PREFIX.length);
    const a = snapshot.achievements.get(id);
    return { id, key: a?.key ?? null, name: a?.name ?? null, achievedAt: h[f] };
  });
  const rule = snapshot.streak;
  let streak: Record<string, unknown> = { ...streakView(null, null, 0), extended: null, streakHistory: [] };
  if (rule !== null) {
    const t = userTimeOf(h, now);
    const { day, period } = currentPeriod(rule.frequency, t);
    const state = stateFromHash(h, rule, day, period, t.jumped);
    const view = streakView(rule, state, period);
    streak = { ...view, extended: lastExtended(h, view.length), streakHistory: streakHistory(rule, state, r.streakHistory, period, MAX_HISTORY, pausesOf(h)) };
  }
  const points = r.points.map((p) => {
    const s = snapshot.pointsSystems.get(p.systemId);
    const level = levelOf(snapshot, p.systemId, p.total);
    return {
      id: p.systemId, key: s?.key ?? null, name: s?.name ?? null, total: p.total, level: level === null ? null : levelView(level),
      awards: p.awards.map(([n, raw]) => awardView(parseAward(raw, n), awardId(tenant, h.id, p.systemId, n), snapshot)), days: p.days,
    };
  });
  const board = (id: string) => snapshot.leaderboards.get(id);
  /** A league cohort's id as the league reads name it; null for a board or a tier gone. */
  const idOf = (boardId: string, tier: number, n: number): string | null => {
    const league = board(boardId)?.league;
    return league && tier < league.tiers.length ? cohortId(league, tier, n) : null;
  };
  const leaderboards = r.places.map((p) => ({
    leaderboardId: p.boardId, key: board(p.boardId)?.key ?? null, name: board(p.boardId)?.name ?? null, run: p.run, group: p.group,
    cohort: p.cohort === null ? null : { ...p.cohort, id: idOf(p.boardId, p.cohort.tier, p.cohort.n) }, rank: p.rank, value: p.value, changes: p.changes,
  }));
  const leaderboardWins = r.won.map((w) => ({
    leaderboardId: w.boardId, key: board(w.boardId)?.key ?? null, name: board(w.boardId)?.name ?? null, run: w.run, group: w.group,
    rank: w.rank, value: w.value,
  }));
  const leagues = r.leagues.map(({ boardId, place }) => {
    const lb = board(boardId);
    return {
      leaderboardId: boardId, key: lb?.key ?? null, tier: place.next, tierKey: lb?.league?.tiers[place.next]?.key ?? null, run: place.run,
      runTier: place.tier, cohort: place.cohort, cohortId: idOf(boardId, place.tier, place.cohort),
    };
  });
  return {
    exportedAt: new Date(now).toISOString(),
    user: userView(h, isControl(snapshot.notifications, tenant, h)),
    clock: clockView(parseClock(h[CLOCK_FIELD])),
    keys: r.keys.map((k) => ({ id: k.id, created: k.created })),
    preferences: preferencesView(h, snapshot),
    metrics, achievements, streak: { ...streak, stored: r.streakHistory }, points,
    boosts: boostsOf(snapshot, tenant, h.id).map((b) => pointsBoostAdminView(b, now)),
    leaderboards, leaderboardWins, leagues,
  };
}

/** An entry of the log as the document lists it; its body is the archived JSON text, written as is. */
function eventJson(line: UserLine): string {
  const at = line.ts === null ? 'null' : `"${new Date(line.ts).toISOString()}"`;
  return `{"id":${JSON.stringify(line.id)},"kind":${JSON.stringify(line.kind)},"at":${at},"body":${line.body}}`;
}

export function adminUserExportRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/users/:id/export', family: 'admin', reach: 'tenant',
    doc: {
      summary: 'Everything laurel holds about a user, as one JSON document (streamed)',
      description: 'For an access or portability request: the profile, attributes, preferences, totals with their days, achievements, '
        + 'streak with its history, points with their awards, places on every board run and finished runs won, leagues, '
        + 'notification and webhook deliveries, and every entry of the event log about the user (archived in Postgres or still '
        + 'in Redis only), written last, a chunk at a time. A failure once the answer has begun closes the connection with the '
        + 'document unfinished.',
      params: { id: USER_ID_PARAM },
      success: [200], refusals: [404, 503], tenant: true,
      response: EXPORT_SCHEMA,
    },
    handler: async (req) => {
      const { tenant } = principalOf(req);
      const userId = req.params[0];
      checkUserId(userId);
      const snapshot = deps.store.current;
      const now = deps.clock.now();
      const record = await userRecord(deps, tenant, userId);
      if (record === null) throw fail('user_not_found', userId);
      // Postgres away or busy: 503 with Retry-After, before anything is written (src/http/server.ts).
      const { notifications, webhooks } = await userDeliveries(deps, tenant, userId);
      const audit = (await userAudit(deps, tenant, record.user)).map((a) => ({ id: a.id, at: a.at.toISOString(), operation: a.operation, ids: a.ids, body: a.body }));
      const head = recordMembers(record, tenant, snapshot, now);
      async function* parts(): AsyncGenerator<string> {
        yield JSON.stringify({
          ...head, notifications: notifications.map(notificationDeliveryView), webhookDeliveries: webhooks.map(webhookDeliveryView), audit,
        }).slice(0, -1);
        yield ',"events":[';
        let first = true;
        for await (const lines of userLog(deps, tenant, userId)) {
          for (const line of lines) {
            yield first ? eventJson(line) : `,${eventJson(line)}`;
            first = false;
          }
        }
        yield ']}';
      }
      return { status: 200, body: '', stream: chunked(parts()) };
    },
  }];
}
