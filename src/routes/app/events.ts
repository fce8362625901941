/**
 * POST {app}/metrics/{key}/event: the request checked, the event recorded (src/engine/event/), the
 * response written out as a string.
 */
import type { Deps } from '../../engine/deps.js';
import { EventRecorder, type EventLimited } from '../../engine/event/record.js';
import { userAchievementView } from '../../domain/achievements.js';
import { pointsJson } from '../../domain/points/rules.js';
import { OCCURRED_AT_SCHEMA, occurredAtOf } from '../../domain/event-time.js';
import { checkAttributeKeys, identificationJson, prepareIdentification, upsertedUserSchema, type UpsertedUser } from '../../domain/users.js';
import { NOT_PRINTABLE_ASCII, principalOf } from '../../http/auth.js';
import type { Reply, Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import { fail } from '../../lib/errors.js';
import type { Snapshot } from '../../model/snapshot.js';

interface EventBody {
  user: UpsertedUser;
  value: number;
  attributes?: Record<string, string> | null;
  occurredAt?: string;
}

const validateEvent = compile<EventBody>({
  type: 'object',
  required: ['user', 'value'],
  properties: {
    user: upsertedUserSchema,
    value: { type: 'number' },
    attributes: { type: ['object', 'null'], additionalProperties: { type: 'string', maxLength: 1024 }, maxProperties: 100 },
    occurredAt: OCCURRED_AT_SCHEMA,
  },
}, { lenient: true });

export const IDEMPOTENCY_KEY_MAX = 255;

/** The achievements an event completed, as a JSON array. */
function completedJson(snapshot: Snapshot, completed: string, achievedAt: string): string {
  if (completed === '') return '[]';
  const list = [];
  for (const id of completed.split(',')) {
    const a = snapshot.achievements.get(id);
    if (a) list.push(userAchievementView(a, snapshot, achievedAt));
  }
  return JSON.stringify(list);
}

function respond(
  status: number, eventId: string, metricId: string, total: string | number, idempotencyKey: string, replayed: boolean,
  achievements: string, currentStreak: string, points: string, leaderboards: string, limited?: EventLimited, occurredAt?: string,
): Reply {
  let body = `{"eventId":"${eventId}","metricId":"${metricId}","total":${Number(total)},"achievements":${achievements},` +
    `"currentStreak":${currentStreak},"points":${points},"leaderboards":${leaderboards}`;
  // Only when the metric's limit bit: Trophy's shape otherwise.
  if (limited !== undefined) body += `,"limited":{"counted":${limited.counted},"ignored":${limited.ignored}}`;
  // Only when the event said when it happened, as it said it.
  if (occurredAt !== undefined) body += `,"occurredAt":${JSON.stringify(occurredAt)}`;
  if (idempotencyKey !== '') {
    body += `,"idempotencyKey":${JSON.stringify(idempotencyKey)},"idempotentReplayed":${replayed}`;
  }
  return { status, body: body + '}' };
}

export function eventRoutes(deps: Deps): Route[] {
  const { store, clock, settings } = deps;
  const recorder = new EventRecorder(deps);

  async function record(req: Request): Promise<Reply> {
    const { tenant } = principalOf(req);
    const snapshot = store.current;
    const metric = snapshot.metricsByKey.get(req.params[0]);
    if (metric === undefined) throw fail('metric_not_found', req.params[0]);
    if (metric.status !== 'active') throw fail('unprocessable', `Metric "${metric.key}" is archived and accepts no events`);

    const idempotencyKey = req.idempotencyKey;
    if (idempotencyKey.length > IDEMPOTENCY_KEY_MAX) {
      throw fail('invalid_header', `Idempotency-Key must have at most ${IDEMPOTENCY_KEY_MAX} characters`);
    }
    if (idempotencyKey !== '' && NOT_PRINTABLE_ASCII.test(idempotencyKey)) {
      throw fail('invalid_header', 'Idempotency-Key must be printable ASCII');
    }
    const body = validateEvent(parseJson(req.body));
    const ident = prepareIdentification(body.user, snapshot);
    let attributesJson = '';
    if (body.attributes != null) {
      checkAttributeKeys(body.attributes, snapshot.eventAttributes);
      attributesJson = JSON.stringify(body.attributes);
    }
    const userId = body.user.id;
    const { occurredAt } = body;
    const done = await recorder.record({
      tenant, metric, userId, ident, value: body.value, attributes: body.attributes, attributesJson, idempotencyKey,
      identificationJson: identificationJson(body.user),
      occurredAt: occurredAt === undefined ? undefined : occurredAtOf(occurredAt, clock.now(), settings.eventTimeWindowMs),
    });
    if (done.status === 202) {
      return respond(202, done.eventId, metric.id, done.total, idempotencyKey, true, '[]', done.streak, '{}', '{}', undefined, occurredAt);
    }
    return respond(201, done.eventId, metric.id, done.total, idempotencyKey, false, completedJson(snapshot, done.completed, done.nowIso),
      done.streak, pointsJson(snapshot, done.awards, tenant, userId, done.nowIso), done.leaderboards, done.limited, occurredAt);
  }

  return [{
    method: 'post', path: '/metrics/:key/event', family: 'app', subject: 'user.id', handler: record,
    doc: {
      summary: 'Record a metric event for a user, creating or updating the user on the way',
      description: 'Answers every change the event caused: the total, achievements completed, the streak, points and leaderboards. ' +
        'With an Idempotency-Key, a retry is answered 202 with the current state and changes nothing.',
      params: { key: { schema: { type: 'string' }, description: 'The metric\'s key' } },
      headers: [{
        name: 'Idempotency-Key', schema: { type: 'string', maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x20-\\x7e]*$' },
        description: 'Printable ASCII; an event sent again with the same key is processed once',
      }],
      body: { check: validateEvent },
      success: [201, 202],
      refusals: [422],
    },
  }];
}
