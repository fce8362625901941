/**
 * Admin API for users' streaks: granting freezes, restoring and resetting streaks, adding and removing pauses
 * (the rule they follow: src/routes/admin/streak-settings.ts). Per-user problems of the bulk calls
 * are issues in a 200 answer, readable by SDK 1.0.42 (`userId`, `level`, `reason`) and by the newer
 * admin spec (`severity`, `message`).
 */

import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { addPause, grantFreezes, removePause, resetStreak, restoreStreak } from '../../engine/streaks/operations.js';

import { parseDate } from '../../domain/time.js';

import { fail } from '../../lib/errors.js';
import { json, ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import { batchAnswer, IDS_QUERY, idsOf } from './resource.js';
import type { Request, Route } from '../../http/server.js';
import { compile, parseJson, refuseBody } from '../../http/validate.js';
import type { BulkIssue, StreakPauseCreated, StreakPausesAnswer } from '../../model/views.js';

export type { BulkIssue };

/** A BulkIssue, for the routes' descriptions. */
const BULK_ISSUE_SCHEMA = {
  type: 'object', required: ['userId', 'level', 'reason', 'severity', 'message'],
  properties: {
    userId: { type: 'string' }, level: { enum: ['error', 'warning'] }, reason: { type: 'string' },
    severity: { enum: ['error', 'warning'] }, message: { type: 'string' }, index: { type: 'integer', minimum: 0 },
  },
};
const BULK_ISSUES = { type: 'array', items: BULK_ISSUE_SCHEMA };

export function bulkIssue(userId: string, level: 'error' | 'warning', reason: string): BulkIssue {
  return { userId, level, reason, severity: level, message: reason };
}

const validateFreezes = compile<{ freezes: { userId: string }[] }>({
  type: 'object', required: ['freezes'],
  properties: {
    freezes: {
      type: 'array', minItems: 1, maxItems: 1000,
      items: { type: 'object', required: ['userId'], properties: { userId: { type: 'string', minLength: 1, maxLength: 255 } } },
    },
  },
});

const validateRestore = compile<{ users: { id: string }[] }>({
  type: 'object', required: ['users'],
  properties: {
    users: {
      type: 'array', minItems: 1, maxItems: 100,
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 } } },
    },
  },
});

const validateReset = compile<{ users: { id: string }[] }>({
  type: 'object', required: ['users'],
  properties: {
    users: {
      type: 'array', minItems: 1, maxItems: 100,
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 } } },
    },
  },
});

const validatePauses = compile<{ pauses: { userId: string; start: string; end: string }[] }>({
  type: 'object', required: ['pauses'],
  properties: {
    pauses: {
      type: 'array', minItems: 1, maxItems: 100,
      items: {
        type: 'object', required: ['userId', 'start', 'end'],
        properties: {
          userId: { type: 'string', minLength: 1, maxLength: 255 },
          start: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
          end: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        },
      },
    },
  },
});

/** Longest pause: a year of days. */
const MAX_PAUSE_DAYS = 366;

export function adminStreakRoutes(deps: Deps): Route[] {
  const { store } = deps;

  async function freezes(req: Request) {
    const { tenant } = principalOf(req);
    const body = validateFreezes(parseJson(req.body));
    const rule = store.current.streak;
    const issues: BulkIssue[] = [];
    // One freeze per entry: a user listed twice gets two.
    const wanted = new Map<string, number>();
    for (const { userId } of body.freezes) wanted.set(userId, (wanted.get(userId) ?? 0) + 1);
    for (const [userId, n] of wanted) {
      if (!rule?.freezes || rule.freezes.max === 0) {
        issues.push(bulkIssue(userId, 'error', 'Streak freezes are not enabled'));
        continue;
      }
      const granted = await grantFreezes(deps, tenant, userId, n, rule);
      if (granted === null) issues.push(bulkIssue(userId, 'error', 'User does not exist'));
      else if (granted < n) issues.push(bulkIssue(userId, 'warning', 'Would exceed maximum freeze limit'));
    }
    return ok({ issues });
  }

  async function restore(req: Request) {
    const { tenant } = principalOf(req);
    const body = validateRestore(parseJson(req.body));
    const rule = store.current.streak;
    if (rule === null) throw fail('unprocessable', 'No streak is configured (PUT /admin/v1/streaks/settings)');
    const restoredUsers: string[] = [];
    const issues: BulkIssue[] = [];
    for (const id of [...new Set(body.users.map((x) => x.id))]) {
      const outcome = await restoreStreak(deps, tenant, id, rule);
      if (outcome === 'not_found') issues.push(bulkIssue(id, 'error', 'User does not exist'));
      else if (outcome === 'nothing_lost') issues.push(bulkIssue(id, 'warning', 'No streak to restore'));
      else if (outcome === 'at_maximum') issues.push(bulkIssue(id, 'warning', 'Streak is already at maximum length'));
      else if (outcome === 'disabled') issues.push(bulkIssue(id, 'warning', 'The user\'s streak preferences disable the streak'));
      else restoredUsers.push(id);
    }
    return ok({ restoredUsers, issues });
  }

  /** Admin API 1.26.0's reset: each user's current streak to zero, started again by their next extension. */
  async function reset(req: Request) {
    const { tenant } = principalOf(req);
    const body = validateReset(parseJson(req.body));
    const rule = store.current.streak;
    if (rule === null) throw fail('unprocessable', 'No streak is configured (PATCH /admin/v1/streaks/settings)');
    const resetUsers: string[] = [];
    const issues: BulkIssue[] = [];
    for (const id of [...new Set(body.users.map((x) => x.id))]) {
      const outcome = await resetStreak(deps, tenant, id, rule);
      if (outcome === 'not_found') issues.push(bulkIssue(id, 'error', 'User does not exist'));
      else if (outcome === 'no_streak') issues.push(bulkIssue(id, 'warning', 'No streak to reset'));
      else resetUsers.push(id);
    }
    return ok({ resetUsers, issues });
  }

  /** Pauses: dates in the user's zone; the periods they touch are neither missed nor counted. */
  async function addPauses(req: Request) {
    const { tenant } = principalOf(req);
    const body = validatePauses(parseJson(req.body));
    const rule = store.current.streak;
    if (rule === null) throw fail('unprocessable', 'No streak is configured (PUT /admin/v1/streaks/settings)');
    const created: StreakPauseCreated[] = [];
    const issues: StreakPausesAnswer['issues'] = [];
    for (let index = 0; index < body.pauses.length; index++) {
      const { userId, start, end } = body.pauses[index];
      const refuse = (reason: string) => issues.push({ ...bulkIssue(userId, 'error', reason), index });
      const first = parseDate(start);
      const last = parseDate(end);
      if (first === null || last === null) { refuse('start and end must be dates (YYYY-MM-DD, from 1970-01-01 on)'); continue; }
      if (last < first) { refuse('end must not be before start'); continue; }
      if (last.diff(first, 'days').days + 1 > MAX_PAUSE_DAYS) { refuse(`A pause may last at most ${MAX_PAUSE_DAYS} days`); continue; }
      const added = await addPause(deps, tenant, userId, start, end, rule);
      if (added === 'past') { refuse('A pause cannot start in the past (in the user\'s time zone)'); continue; }
      if (added === 'not_found') { refuse('User does not exist'); continue; }
      created.push({ id: added.id, userId, start, end, status: 'active' });
    }
    const answer: StreakPausesAnswer = { created, issues };
    return json(created.length > 0 ? 201 : 200, answer);
  }

  async function deletePauses(req: Request) {
    refuseBody(req.body);
    const { tenant } = principalOf(req);
    const deleted: { id: string }[] = [];
    const issues: { id: string; severity: 'error'; message: string }[] = [];
    for (const id of idsOf(queryOf(req))) {
      if (await removePause(deps, tenant, id)) deleted.push({ id });
      else issues.push({ id, severity: 'error', message: `Pause "${id}" not found` });
    }
    return ok({ deleted, issues });
  }

  return [
    {
      method: 'post', path: '/streaks/pauses', family: 'admin', handler: addPauses,
      doc: {
        summary: 'Pause users\' streaks from a start to an end date, in each user\'s zone', body: { check: validatePauses },
        success: [201, 200], refusals: [422], tenant: true,
        response: { type: 'object', required: ['created', 'issues'], properties: { created: { type: 'array' }, issues: BULK_ISSUES } },
      },
    },
    {
      method: 'del', path: '/streaks/pauses', family: 'admin', handler: deletePauses,
      doc: { summary: 'Remove pauses', query: [IDS_QUERY], success: [200], response: batchAnswer('deleted'), tenant: true },
    },
    {
      method: 'post', path: '/streaks/freezes', family: 'admin', handler: freezes,
      doc: {
        summary: 'Grant streak freezes, one per entry', body: { check: validateFreezes }, success: [200], refusals: [422], tenant: true,
        response: { type: 'object', required: ['issues'], properties: { issues: BULK_ISSUES } },
      },
    },
    {
      method: 'post', path: '/streaks/restore', family: 'admin', handler: restore,
      doc: {
        summary: 'Restore users\' lost streaks', body: { check: validateRestore }, success: [200], refusals: [422], tenant: true,
        response: {
          type: 'object', required: ['restoredUsers', 'issues'],
          properties: { restoredUsers: { type: 'array', items: { type: 'string' } }, issues: BULK_ISSUES },
        },
      },
    },
    {
      method: 'post', path: '/streaks/reset', family: 'admin', handler: reset, reach: 'tenant',
      doc: {
        summary: 'Reset users\' current streaks to zero', body: { check: validateReset }, success: [200], refusals: [422], tenant: true,
        response: {
          type: 'object', required: ['resetUsers', 'issues'],
          properties: { resetUsers: { type: 'array', items: { type: 'string' } }, issues: BULK_ISSUES },
        },
      },
    },
  ];
}
