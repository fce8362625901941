/**
 * Where laurel's answers and the 1.21.1 specs part, in one place, each with its reason (the same
 * list is in docs/api.md, "Differences from the specs"): the paths the specs do not describe,
 * whose answers test/support/openapi.ts skips, and the deliberate differences it allows.
 */

export type Family = 'app' | 'admin';

/** Answers not checked: laurel's own paths, which no operation of the specs describes. */
export interface Skipped {
  /** `ops`: the paths outside both APIs (`/health`, `/ready`, `/metrics`). */
  family: Family | 'ops';
  /** Upper case, or '*' for any. */
  method: string;
  /** The path below the family's prefix (`/v1`, `/api`, `/admin/v1`), without the query. */
  path: RegExp;
  reason: string;
}

/** A deliberate difference: Ajv errors it excuses, or a status answered in place of another. */
export interface Difference {
  /** Operations as `<family> <METHOD> <spec path>`: `app GET /users/{id}/streak`. */
  operations: string[];
  /** The statuses it applies to (default: all). */
  statuses?: number[];
  /** The instance paths of the errors it excuses (none without). */
  at?: RegExp;
  /** The Ajv keywords of those errors (default: any). */
  keywords?: string[];
  /** Excuses an error only when the value it is about passes (default: any value). */
  value?: (value: unknown) => boolean;
  /** A status the spec does not list, checked against the schema of the one it stands for. */
  answersAs?: Record<number, number>;
  reason: string;
}

export const SKIPPED: Skipped[] = [
  { family: 'ops', method: '*', path: /^\/(health|ready|metrics|openapi\.json)$/, reason: 'operations endpoints: health, readiness, Prometheus, the OpenAPI document' },
  { family: 'ops', method: '*', path: /^\/dashboard(\/.*)?$/, reason: 'laurel\'s own: the dashboard\'s page and files (docs/dashboard.md)' },
  {
    family: 'app', method: 'GET', path: /^\/streaks\/rankings$/,
    reason: 'in @trophyso/node 1.0.42 (streaks.rankings), gone from the 1.21.1 spec; laurel keeps it for that SDK',
  },
  { family: 'admin', method: 'PUT', path: /^\/streaks\/settings$/, reason: 'laurel\'s earlier form of the streak rule (Admin API 1.26.0 has GET and PATCH)' },
  {
    family: 'admin', method: '*', path: /^\/api-keys(\/[^/]+)?$/,
    reason: 'laurel\'s own admin and application keys (Trophy\'s /application-api-keys are per-user client keys, not implemented)',
  },
  { family: 'admin', method: '*', path: /^\/clock$/, reason: 'the manual clock of tests and demos (LAUREL_CLOCK=manual)' },
  { family: 'admin', method: '*', path: /^\/notifications\/(settings|templates|deliveries)(\/[^/]+)?$/, reason: 'laurel\'s own: Trophy publishes no Admin API for notifications (docs/notifications.md)' },
  { family: 'admin', method: '*', path: /^\/import(\/[^/]+)?$/, reason: 'laurel\'s own: a history import and its progress (docs/api.md, "History import")' },
  { family: 'admin', method: 'GET', path: /^\/metrics\/events\/[^/]+$/, reason: 'laurel\'s own: the progress of a batch of metric events (docs/api.md, "Batch events")' },
  { family: 'admin', method: 'GET', path: /^\/analytics$/, reason: 'laurel\'s own: the dashboard\'s analytics (docs/dashboard.md)' },
  { family: 'admin', method: 'GET', path: /^\/users$/, reason: 'laurel\'s own: the dashboard\'s user list and search (docs/dashboard.md, "Users")' },
  { family: 'admin', method: 'DELETE', path: /^\/users\/[^/]+$/, reason: 'laurel\'s own: a user\'s erasure (docs/api.md, "Erasing a user")' },
  { family: 'admin', method: 'POST', path: /^\/events\/void$/, reason: 'laurel\'s own: voiding events (docs/api.md, "Fair play: voiding an event and revoking an achievement")' },
  {
    family: 'admin', method: 'DELETE', path: /^\/users\/[^/]+\/achievements\/[^/]+$/,
    reason: 'laurel\'s own: revoking an achievement (docs/api.md, "Fair play: voiding an event and revoking an achievement")',
  },
  { family: 'admin', method: '*', path: /^\/users\/[^/]+\/exclusion$/, reason: 'laurel\'s own: excluding a user from the rankings (docs/api.md, "Fair play: excluding a user")' },
  { family: 'admin', method: 'GET', path: /^\/users\/[^/]+\/export$/, reason: 'laurel\'s own: a user\'s export (docs/api.md, "Exporting a user")' },
  { family: 'admin', method: 'GET', path: /^\/users\/[^/]+\/clock$/, reason: 'laurel\'s own: a user\'s clock (docs/api.md, "Time zones and travel")' },
  { family: 'admin', method: 'GET', path: /^\/erasures\/[^/]+$/, reason: 'laurel\'s own: an erasure\'s progress (docs/api.md, "Erasing a user")' },
  { family: 'admin', method: 'GET', path: /^\/audit$/, reason: 'laurel\'s own: the audit log of the Admin API\'s writes (docs/api.md, "Audit log")' },
  { family: 'admin', method: '*', path: /^\/webhooks(\/[^/]+(\/secret|\/deliveries(\/[^/]+\/retry)?)?)?$/, reason: 'laurel\'s own: Trophy configures webhooks in its dashboard (docs/webhooks.md)' },
  { family: 'app', method: 'GET', path: /^\/users\/[^/]+\/leagues\/[^/]+$/, reason: 'laurel\'s own: a user\'s league (docs/api.md, "Leagues")' },
  { family: 'admin', method: 'GET', path: /^\/leaderboards\/[^/]+\/league$/, reason: 'laurel\'s own: a league\'s run per tier (docs/api.md, "Leagues")' },
  { family: 'admin', method: 'GET', path: /^\/leaderboards\/[^/]+\/stats$/, reason: 'laurel\'s own: a board\'s statistics (docs/api.md, "A board\'s statistics")' },
  { family: 'app', method: 'GET', path: /^\/live$/, reason: 'laurel\'s own: live updates over WebSocket (docs/live.md; docs/live.md)' },
  { family: 'ops', method: '*', path: /^\/(unsubscribe|preferences)\/[^/]+$/, reason: 'the links of emails: HTML pages and the one-click unsubscribe, without a key' },
];

/** A number a metric's values can make: laurel takes fractional values (and the spec's `integer` does not). */
const finiteNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

export const DIFFERENCES: Difference[] = [
  {
    operations: ['admin GET /achievements', 'admin GET /achievements/{id}', 'admin POST /achievements', 'admin PATCH /achievements'],
    at: /^(\/(created|updated))?(\/\d+)?\/status$/, keywords: ['enum'], value: (v) => v === 'archived',
    reason: 'laurel\'s earlier form of achievements has an `archived` status, which Admin API 1.26.0 does not list',
  },
  {
    operations: ['admin POST /achievements'],
    reason: 'an achievement created without `status` is `active` (laurel\'s earlier form\'s default, which clients written against it rely on); '
      + 'Admin API 1.26.0 says `inactive`. A valid answer either way: nothing to excuse',
  },
  {
    operations: [
      'app GET /achievements', 'app GET /users/{id}/achievements', 'app POST /metrics/{key}/event', 'app GET /users/{id}/metrics',
      'app GET /users/{id}/metrics/{key}', 'app GET /users/{id}/wrapped',
    ],
    at: /\/trigger$/, keywords: ['enum'], value: (v) => v === 'anniversary',
    reason: 'an anniversary achievement (Admin API 1.26.0\'s trigger) shows its trigger, which the 1.21.1 Application spec does not list; SDK 1.0.42 takes any string',
  },
  {
    operations: ['app GET /users/{id}/points/{key}'], at: /^\/awards\/\d+\/trigger(\/type)?$/, keywords: ['enum', 'required'],
    value: (v) => v === 'void' || (typeof v === 'object' && v !== null && (v as { id?: unknown }).id === 'void'),
    reason: 'the award that took back a voided event\'s points shows its trigger as `{ id: "void", type: "void" }`: no configured trigger, a type the spec\'s enum does not list',
  },
  {
    operations: ['app POST /metrics/{key}/event'], answersAs: { 202: 201 },
    reason: 'an idempotent replay answers 202 (Trophy\'s documented behaviour; the spec lists only 201), with the same body',
  },
  {
    operations: ['app PUT /users/{id}'], answersAs: { 201: 200 },
    reason: 'the upsert answers 201 when it created the user, 200 when it updated one (the spec lists only 200); every client takes any 2xx',
  },
  {
    operations: [
      'app POST /metrics/{key}/event', 'app GET /leaderboards/{key}',
      'app GET /users/{id}/leaderboards/{key}', 'app GET /users/{id}/wrapped',
    ],
    at: /^(\/leaderboards\/[^/]+\/threshold|\/rankings\/\d+\/value|\/value|\/history\/\d+\/(previousValue|value)|\/activity\/\w+\/leaderboards\/[^/]+\/value)$/,
    keywords: ['type'], value: finiteNumber,
    reason: 'a metric\'s events may be fractional (the interface), so a board ranking it holds fractional values and thresholds where the spec says integer',
  },
];
