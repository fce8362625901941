/**
 * The audit log's entries as rules (docs/api.md, "Audit log"): what an Admin API write leaves of
 * itself once answered (src/engine/audit/record.ts), its request body without secrets, the ids it
 * touched, the page cursor, and how an erased user leaves the entries that name them
 * (src/postgres/audit.ts).
 */
import { parseDate, parseInstant } from './time.js';
import type { AuditEntryView } from '../model/views.js';
import { NOT_TEXT } from '../lib/text.js';
import { REDACTED, redactUrl } from './url-secrets.js';

const DAY_MS = 86_400_000;
/** The first instant past laurel's calendar (10000-01-01T00:00Z): `to=9999-12-31` ends there. */
export const AUDIT_TIME_END = Date.UTC(10000, 0, 1);

/**
 * An Admin API write as the audit log keeps it: as `GET /admin/v1/audit` shows it
 * (src/model/views.ts), `at` in ms since the epoch (laurel's clock); `id` a UUID v7 made with it,
 * `body` the request's without secrets (AUDIT_BODY_MAX), `ids` those its answer names, else its path's.
 */
export type AuditEntry = Omit<AuditEntryView, 'at'> & { at: number };

/** The most characters of a body an entry keeps; a longer one is kept as a note of its size. */
export const AUDIT_BODY_MAX = 64 * 1024;

/**
 * Fields whose value is a secret wherever they are, matched by name (any letter case): signing
 * secrets, passwords, tokens (device tokens too), credentials, private and API keys, and
 * authorization headers. `key` alone is a metric's or achievement's key, not a secret.
 */
const SECRET_FIELD = /secret|passw(or)?d|token|credential|private_?key|api_?key|authorization|smtp_?url/i;

/** What Postgres's jsonb cannot hold: U+0000, and a surrogate without its pair. */
const NOT_STORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as the audit log can keep it: what jsonb refuses replaced by U+FFFD. */
function storable(text: string): string {
  return text.replace(NOT_STORABLE, '\uFFFD');
}

/**
 * A JSON value without secrets: every secret field's value replaced, and every text that is a URL,
 * wherever it is (a value or a field's name, at any depth), without its credentials and values
 * (src/domain/url-secrets.ts).
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return storable(redactUrl(value));
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    out[storable(redactUrl(name))] = SECRET_FIELD.test(name) && v !== null ? REDACTED : redactSecrets(v);
  }
  return out;
}

/** The body an entry keeps of a request body as sent: parsed and without secrets, or a note of what it was. */
export function auditBody(text: string | null): unknown {
  if (text === null || text === '') return null;
  if (text.length > AUDIT_BODY_MAX) return `[not kept: ${text.length} characters, over ${AUDIT_BODY_MAX}]`;
  try {
    return redactSecrets(JSON.parse(text));
  } catch {
    return `[not kept: not JSON, ${text.length} characters]`;
  }
}

/** Fields of an answer that name what it made or touched. */
const ID_FIELDS = ['id', 'erasureId', 'batchId', 'importId'];
/** Fields of an answer that list what it made or touched (the Admin API's batch answers). */
const LIST_FIELDS = ['created', 'updated', 'deleted'];

/**
 * The ids an answer names (a batch's created, updated and deleted, a single id, the events a void
 * voided), in order, once each.
 */
export function answerIds(text: string): string[] {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return [];
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return [];
  const a = answer as Record<string, unknown>;
  const ids: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && !ids.includes(v)) ids.push(v);
    else if (v !== null && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string') add((v as { id: string }).id);
  };
  for (const f of ID_FIELDS) add(a[f]);
  for (const f of LIST_FIELDS) if (Array.isArray(a[f])) for (const item of a[f] as unknown[]) add(item);
  if (Array.isArray(a.voided)) for (const item of a.voided as unknown[]) add((item as { eventId?: unknown } | null)?.eventId);
  return ids;
}

/** A date or an instant as `from` and `to` take them: `2026-03-02`, `2026-03-02T08:00:00Z`, `...+01:00`. */
export const AUDIT_INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';

/**
 * The instant (ms) a `from` or `to` names: a date is its UTC day's start for `from` and its end
 * for `to` (the day included), an instant itself. Null when it is none of laurel's calendar.
 */
export function auditInstant(text: string, end: boolean): number | null {
  if (!text.includes('T')) {
    const day = parseDate(text);
    return day === null ? null : day.toMillis() + (end ? DAY_MS : 0);
  }
  return parseInstant(text);
}

/** The page cursor of `GET /admin/v1/audit`: the last entry's time and id, opaque to clients. */
export function auditCursor(at: number, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

/** A cursor read back, or null when it is none that auditCursor made. */
export function readAuditCursor(text: string): { at: number; id: string } | null {
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    // The id goes to Postgres as text: one holding U+0000 or a lone surrogate is no entry's.
    if (!Array.isArray(v) || v.length !== 2 || typeof v[1] !== 'string' || v[1].length > 64 || NOT_TEXT.test(v[1])) return null;
    if (!Number.isSafeInteger(v[0]) || v[0] < 0 || v[0] >= AUDIT_TIME_END) return null;
    return { at: v[0] as number, id: v[1] };
  } catch {
    return null;
  }
}

/**
 * An entry's body about an erased user with what names them replaced by the erasure's id: every
 * string that is one of `exact` (their name: short words another's text may hold, so a whole value
 * only) and every occurrence of one of `contained` in any string (their email, device tokens: a
 * reason or a value given as free text that holds them). Null when nothing changed.
 */
export function withoutNeedles(
  body: unknown, exact: readonly string[], contained: readonly string[], erasureId: string,
): { body: unknown } | null {
  const inside = contained.filter((n) => n !== '');
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let out = exact.includes(v) ? erasureId : v;
      for (const n of inside) if (out.includes(n)) out = out.split(n).join(erasureId);
      if (out !== v) changed = true;
      return out;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[walk(k) as string] = walk(x);
    return out;
  };
  const out = walk(body);
  return changed ? { body: out } : null;
}

/** The fields whose object is a user, named by its `id` (a batch item's `user`, a streak restore's `users`). */
const USER_FIELDS = new Set(['user', 'users']);

/**
 * An entry's body without an erased user: every object that names them (a batch item's `user`, a
 * streak restore's user, an item's `userId`: a freeze's, a void's, a key's) becomes
 * `{ erasureId }`. Nothing else changes: a metric's key or a reason that reads as their id is not
 * theirs. Null when the body does not name them.
 */
export function withoutUser(body: unknown, userId: string, erasureId: string): { body: unknown } | null {
  let changed = false;
  const walk = (v: unknown, field: string | null): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, field));
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    if (o.userId === userId || (field !== null && USER_FIELDS.has(field) && o.id === userId)) {
      changed = true;
      return { erasureId };
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = walk(x, k);
    return out;
  };
  const out = walk(body, null);
  return changed ? { body: out } : null;
}
