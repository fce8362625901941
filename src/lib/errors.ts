/**
 * The one catalogue of laurel's errors, each with a stable code: those it answers a request with
 * (ERRORS: a status and a message template; every error body is `{ "error": "<message>", "code":
 * "<code>" }`, docs/api.md lists every code), and those a process stops or fails a job with
 * (PROCESS_ERRORS: a LaurelError, its code in its log line and after the message a command prints;
 * docs/operations.md lists every code). A test keeps each list and its doc in step.
 */

interface ErrorSpec<A extends string[]> {
  status: number;
  message: (...args: A) => string;
}

function spec<A extends string[]>(status: number, message: (...args: A) => string): ErrorSpec<A> {
  return { status, message };
}

export const ERRORS = {
  malformed_json: spec(400, (detail: string) => `Request body is not valid JSON: ${detail}`),
  empty_body: spec(400, () => 'Request body is empty; a JSON body is required'),
  invalid_body: spec(400, (detail: string) => `Invalid request body: ${detail}`),
  unknown_field: spec(400, (field: string) => `Invalid request body: unknown field "${field}" (check its spelling; unknown fields are refused)`),
  invalid_query: spec(400, (detail: string) => `Invalid query parameter: ${detail}`),
  invalid_path: spec(400, (detail: string) => `Invalid path: ${detail}`),
  invalid_header: spec(400, (detail: string) => detail),
  unauthorized: spec(401, () => 'Missing or invalid API key: send a valid key in the X-API-KEY header'),
  wrong_key_kind: spec(403, () => 'This API key may not call the Admin API; use an admin key'),
  wrong_tenant: spec(403, (tenant: string) => `This API key is bound to another tenant than "${tenant}"`),
  outside_tenant: spec(403, (detail: string) => `This API key is bound to one tenant: ${detail}`),
  wrong_user: spec(403, (detail: string) => `This API key acts for one user only: ${detail}`),
  route_not_found: spec(404, (method: string, path: string) => `No route for ${method} ${path}`),
  tenant_not_found: spec(404, (tenant: string) => `Tenant "${tenant}" not found`),
  user_not_found: spec(404, (id: string) => `User "${id}" not found`),
  user_erased: spec(409, () => 'Its user was erased after this item was accepted: it is not applied (nor named here)'),
  metric_not_found: spec(404, (key: string) => `Metric "${key}" not found`),
  not_found: spec(404, (what: string) => `${what} not found`),
  upgrade_required: spec(426, (path: string) => `${path} is a WebSocket: send a WebSocket upgrade (docs/live.md)`),
  method_not_allowed: spec(405, (method: string, path: string) => `Method ${method} is not allowed on ${path}`),
  payload_too_large: spec(413, (limit: string) => `Request body exceeds the limit of ${limit} bytes`),
  headers_too_large: spec(431, (limit: string) => `Request headers exceed the limit of ${limit} bytes`),
  unsupported_media_type: spec(415, (type: string) => `Content-Type "${type}" is not supported; send application/json`),
  invalid_attributes: spec(422, (keys: string) =>
    `Invalid attribute keys: ${keys}. Please ensure all attribute keys match those set up in laurel's attributes (Admin API /admin/v1/attributes).`),
  subscribe_without_email: spec(422, () =>
    'subscribeToEmails cannot be true for a user without an email; send an email or set subscribeToEmails to false'),
  invalid_timezone: spec(422, (tz: string) => `"${tz}" is not a valid IANA time zone (for example Europe/London)`),
  user_exists: spec(422, (id: string) => `User "${id}" already exists; use PUT /users/{id} to update it`),
  out_of_points: spec(422, (system: string) =>
    `Not enough points in "${system}": this event would take the total below 0, and its trigger refuses that`),
  points_out_of_range: spec(422, (system: string) =>
    `Too many points in "${system}": this event would take the total past 9007199254740991 (2^53 - 1, the largest total kept exactly); nothing was applied`),
  occurred_at_out_of_window: spec(422, (detail: string) => `occurredAt ${detail}; nothing was applied`),
  unprocessable: spec(422, (detail: string) => detail),
  rate_limited: spec(429, (limit: string, seconds: string) =>
    `Too many requests with this API key (at most ${limit}); retry in ${seconds} s`),
  internal: spec(500, () => 'Internal error'),
  unavailable: spec(503, (detail: string) => `Service unavailable: ${detail}`),
  not_ready: spec(503, (failing: string) => `Not ready: ${failing}`),
  batch_backlog_full: spec(503, (waiting: string, max: string, seconds: string) =>
    `Too many batch event items waiting for the workers (${waiting}, at most ${max}: LAUREL_BATCH_MAX_WAITING); nothing was accepted, retry in ${seconds} s`),
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** Headers to answer with beside the body (`Retry-After` of a 429). */
  headers: Record<string, string> | null = null;

  constructor(code: ErrorCode, ...args: string[]) {
    const s = ERRORS[code];
    // fail() holds the arguments to the message's; here the catalogue is one shape.
    super((s.message as (...a: string[]) => string)(...args));
    this.status = s.status;
    this.code = code;
  }
}

/** The arguments an error's message takes, from its template. */
export type ErrorArgs<C extends ErrorCode> = Parameters<(typeof ERRORS)[C]['message']>;

/** Builds an HttpError: `throw fail('user_not_found', id)`; the arguments are the message's. */
export function fail<C extends ErrorCode>(code: C, ...args: ErrorArgs<C>): HttpError {
  return new HttpError(code, ...args);
}

export function errorBody(err: HttpError): string {
  return JSON.stringify({ error: err.message, code: err.code });
}

/** The errors a process stops with, or fails a job with, and what each means (docs/operations.md lists them as here). */
export const PROCESS_ERRORS = {
  invalid_setting: 'a setting (an environment variable or a command\'s argument) cannot be used: the message names it and what it takes',
  redis_unreachable: 'Redis did not answer when the process started (`REDIS_URL`)',
  postgres_unavailable: 'Postgres is busy or cannot be reached (`DATABASE_URL`)',
  database_unusable: '`DATABASE_URL` names no database, or one that does not exist and that its role may not create',
  installation_mismatch: 'Redis or Postgres holds what this version cannot serve: a newer laurel wrote it, or they hold two installations\' data',
  listen_failed: 'the api cannot listen on `HOST` and `PORT` (taken, or not permitted)',
  api_process_failed: 'an api process stopped before it listened; its own lines above say why',
  restore_refused: '`laurel restore` refused to overwrite the data Redis holds (`--force` deletes it first)',
  snapshot_refused: 'Redis does not hold the installation: a snapshot of it would replace what Postgres keeps',
  push_retry: 'a push provider failed in a way worth trying again (unreachable, 429, 5xx): the workers try the notification again',
  webhook_address_refused: 'a webhook\'s address resolves to one laurel does not send to (private or loopback, unless `LAUREL_WEBHOOKS_ALLOW_PRIVATE`)',
  webhook_abandoned: 'a webhook POST given up as its worker stopped: whether the receiver saw it is unknown, so it is sent again',
  loadtest_failed: '`laurel loadtest` could not start (its setup or its probe failed): nothing was measured',
} as const;

export type ProcessErrorCode = keyof typeof PROCESS_ERRORS;

/** An error a process stops or fails a job with: its `code` from PROCESS_ERRORS, its class's name as `name`. */
export class LaurelError extends Error {
  readonly code: ProcessErrorCode;

  constructor(code: ProcessErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}
