/**
 * Admin API: corrections after the fact (laurel's own; docs/api.md, "Fair play: voiding an event
 * and revoking an achievement"). `POST /admin/v1/events/void` voids events by the ids their
 * answers gave (src/engine/fairplay/void.ts), answering `{ voided, issues }` in the style of the
 * Admin API's batch writes: an event not found, voided already or whose metric or user is gone is
 * an issue of its item, not an HTTP error. `DELETE /admin/v1/users/{id}/achievements/{key}` revokes
 * a completion (src/engine/fairplay/revoke.ts). A key bound to a tenant reaches its tenant's
 * events and users only.
 */
import type { Deps } from '../../engine/deps.js';
import { voidEvents, type VoidItem } from '../../engine/fairplay/void.js';
import { revokeCompletion } from '../../engine/fairplay/revoke.js';
import { checkUserId, USER_ID_MAX, USER_ID_PARAM } from '../../domain/users.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import { fail } from '../../lib/errors.js';
import { ISSUE_SCHEMA, MAX_BATCH } from './resource.js';

const validateVoid = compile<VoidItem[]>({
  type: 'array', minItems: 1, maxItems: MAX_BATCH,
  items: {
    type: 'object', required: ['eventId', 'reason'],
    properties: {
      eventId: { type: 'string', minLength: 1, maxLength: 64, description: 'The eventId the event\'s answer gave' },
      reason: { type: 'string', minLength: 1, maxLength: 500, description: 'Why, kept in the log and sent with event.voided' },
      userId: {
        type: 'string', minLength: 1, maxLength: USER_ID_MAX,
        description: 'The event\'s user, when known: the lookup reads that user\'s partition only (and an event of another user is not found)',
      },
    },
  },
});

const VOIDED_SCHEMA = {
  type: 'object', required: ['eventId', 'userId', 'metric', 'date', 'value', 'total', 'points'],
  properties: {
    eventId: { type: 'string' }, userId: { type: 'string' }, metric: { type: 'string', description: 'The metric\'s key' },
    date: { type: 'string', format: 'date', description: 'The event\'s day on the user\'s clock' },
    value: { type: 'number', description: 'Taken off the total: the part of the event\'s value that counted' },
    total: { type: 'number', description: 'The metric\'s total after' },
    points: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Points taken back, by system key (negative)' },
  },
};

export function adminFairPlayRoutes(deps: Deps): Route[] {
  async function voidHandler(req: Request) {
    const { tenant } = principalOf(req);
    const items = validateVoid(parseJson(req.body));
    return ok(await voidEvents(deps, tenant, items));
  }

  async function revoke(req: Request) {
    const { tenant } = principalOf(req);
    const [userId, key] = req.params;
    checkUserId(userId);
    const achievement = deps.store.current.achievementsByKey.get(key);
    if (achievement === undefined) throw fail('not_found', `Achievement "${key}"`);
    const revoked = await revokeCompletion(deps, tenant, userId, achievement.id);
    if (revoked === 'unknown_user') throw fail('user_not_found', userId);
    if (revoked === 'not_completed') throw fail('not_found', `A completion of achievement "${key}" by user "${userId}"`);
    return ok({ userId, achievement: key, revokedAt: revoked });
  }

  return [
    {
      method: 'post', path: '/events/void', family: 'admin', reach: 'tenant', handler: voidHandler,
      doc: {
        summary: 'Void events: what they counted and the points they awarded taken back, the boards moved',
        description: 'Each event found by its id in the logs Redis holds, then in the Postgres archive (every partition\'s, '
          + 'or the user\'s when `userId` is given). Achievements and streak periods it completed stay; finalised runs keep '
          + 'their rankings. Voiding an event again changes nothing (an issue says so).',
        body: { check: validateVoid }, success: [200], refusals: [503], tenant: true,
        response: {
          type: 'object', required: ['voided', 'issues'],
          properties: { voided: { type: 'array', items: VOIDED_SCHEMA }, issues: { type: 'array', items: ISSUE_SCHEMA } },
        },
      },
    },
    {
      method: 'del', path: '/users/:id/achievements/:key', family: 'admin', reach: 'tenant', handler: revoke,
      doc: {
        summary: 'Revoke a user\'s completion of an achievement',
        description: 'The completion leaves the user, rarity and the completion count move; points an achievement trigger '
          + 'awarded for it stay. A metric achievement is completed again by the next event that takes the total across its threshold.',
        params: { id: USER_ID_PARAM, key: { schema: { type: 'string' }, description: 'The achievement\'s key' } },
        success: [200], refusals: [404], tenant: true,
        response: {
          type: 'object', required: ['userId', 'achievement', 'revokedAt'],
          properties: { userId: { type: 'string' }, achievement: { type: 'string' }, revokedAt: { type: 'string', format: 'date-time' } },
        },
      },
    },
  ];
}
