/**
 * Admin API: `GET /admin/v1/users/{id}/clock` (laurel's own; docs/api.md, "Time zones and travel"):
 * the user's zone and their time now on their clock (src/domain/clock.ts), which the dashboard's
 * user page shows beside the zone. A key bound to a tenant reads its own tenant's users only.
 */
import type { Deps } from '../../engine/deps.js';
import { userFields } from '../../engine/users/read.js';
import { CLOCK_FIELD, clockView, dateOfDayIndex, parseClock, userTime } from '../../domain/clock.js';
import { checkUserId, USER_ID_PARAM } from '../../domain/users.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { fail } from '../../lib/errors.js';
import type { UserClockView } from '../../model/views.js';

const DATE = { type: 'string', format: 'date' };

const CLOCK_SCHEMA = {
  type: 'object', required: ['tz', 'date', 'hour', 'held', 'jumped', 'stored'],
  properties: {
    tz: { type: ['string', 'null'], description: 'The user\'s zone (null: UTC)' },
    date: { ...DATE, description: 'The date now on the user\'s clock: the one their events count in' },
    hour: { type: 'integer', minimum: 0, maximum: 23, description: 'The hour of the day now on the user\'s clock' },
    held: { type: 'boolean', description: 'The zone\'s calendar is behind the clock (the user moved west): the clock waits for it' },
    jumped: {
      type: ['object', 'null'], required: ['first', 'last'], properties: { first: DATE, last: DATE },
      description: 'The dates the clock last jumped over in under 24 hours (a move east across the date line): no streak misses them',
    },
    stored: {
      type: ['object', 'null'], description: 'What the clock holds (as the export shows it); null before the user\'s first event',
      properties: { date: DATE, hour: { type: 'integer' }, lastEventAt: { type: 'string', format: 'date-time' } },
    },
  },
};

export function adminUserClockRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/users/:id/clock', family: 'admin', reach: 'tenant',
    doc: {
      summary: 'The user\'s zone and their time now on their clock',
      description: 'The clock only moves forward: a change of zone never re-opens a period, a move east starts the new date at once.',
      params: { id: USER_ID_PARAM }, success: [200], refusals: [404], tenant: true, response: CLOCK_SCHEMA,
    },
    handler: async (req) => {
      const { tenant } = principalOf(req);
      const id = req.params[0];
      checkUserId(id);
      const h = await userFields(deps, tenant, id, ['tz', CLOCK_FIELD]);
      if (h === null) throw fail('user_not_found', id);
      const stored = parseClock(h[1]);
      const t = userTime(h[0] ?? '', stored, deps.clock.now());
      const view: UserClockView = {
        tz: h[0], date: t.date, hour: ((t.hour % 24) + 24) % 24, held: t.held,
        jumped: t.jumped === null ? null : { first: dateOfDayIndex(t.jumped[0]), last: dateOfDayIndex(t.jumped[1]) },
        stored: clockView(stored),
      };
      return ok(view);
    },
  }];
}
