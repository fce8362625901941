/**
 * Admin API: `GET /admin/v1/audit` (laurel's own; docs/api.md, "Audit log"): the Admin API's
 * writes, newest first, a page at a time by an opaque cursor, from Postgres (src/postgres/audit.ts),
 * where the workers copy them a second or so after their answer. A key bound to a tenant sees
 * that tenant's entries only; a key of the whole account sees every entry.
 */
import type { Deps } from '../../engine/deps.js';
import { AUDIT_INSTANT_PATTERN, auditCursor, auditInstant, readAuditCursor, type AuditEntry } from '../../domain/audit.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { fail } from '../../lib/errors.js';
import type { AuditEntryView, AuditPageView } from '../../model/views.js';
import { auditPage } from '../../engine/audit/read.js';

const MAX_LIMIT = 100;

const AUDIT_PAGE_SCHEMA = {
  type: 'object', required: ['entries', 'next'],
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object', required: ['id', 'at', 'keyId', 'keyName', 'tenantId', 'operation', 'ids', 'body', 'status', 'requestId'],
        properties: {
          id: { type: 'string' }, at: { type: 'string', format: 'date-time' },
          keyId: { type: 'string' }, keyName: { type: 'string', description: 'The key\'s name (never the key)' },
          tenantId: { type: ['string', 'null'], description: 'The tenant it acted for (`_` the default tenant), null for the whole account' },
          operation: { type: 'string', description: 'The method and the route, as `PATCH /admin/v1/metrics`' },
          ids: { type: 'array', items: { type: 'string' }, description: 'What it touched: the ids its answer names, else its path\'s' },
          body: { description: 'The request body without its secrets; null without one' },
          status: { type: 'integer' },
          requestId: { type: ['string', 'null'], description: 'The request\'s id, as its answer\'s `X-Request-Id` gave it (null: written before laurel kept it)' },
        },
      },
    },
    next: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last page' },
  },
};

const INSTANT = { type: 'string', maxLength: 40, pattern: AUDIT_INSTANT_PATTERN };

function entryView(e: AuditEntry): AuditEntryView {
  return { ...e, at: new Date(e.at).toISOString() };
}

/** A `from` or `to` as an instant, refused when it names none. */
function instantOf(name: string, text: string | null, end: boolean): number | null {
  if (text === null) return null;
  const ms = auditInstant(text, end);
  if (ms === null) {
    throw fail('invalid_query', `${name} must be a date or an instant (its offset from -23:59 to +23:59) from 1970 to 9999, got ${JSON.stringify(text)}`);
  }
  return ms;
}

export function adminAuditRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/audit', family: 'admin', reach: 'rows',
    doc: {
      summary: 'The Admin API\'s writes, newest first, a page at a time',
      description: 'Every POST, PUT, PATCH and DELETE of the Admin API, refused ones too, a second or so after its answer; '
        + 'a key bound to a tenant sees its tenant\'s only. Kept LAUREL_AUDIT_RETENTION_DAYS (365 by default).',
      query: [
        { name: 'from', schema: INSTANT, description: 'From this date (its UTC day\'s start) or instant, included' },
        { name: 'to', schema: INSTANT, description: 'Up to this date (its UTC day included) or instant, excluded' },
        { name: 'keyId', schema: { type: 'string', maxLength: 64 }, description: 'The writes of this key only' },
        {
          name: 'operation', schema: { type: 'string', maxLength: 200, pattern: '^(POST|PUT|PATCH|DELETE) /admin/v1/\\S*$' },
          description: 'This operation only, as the entries name it: `PATCH /admin/v1/metrics`',
        },
        { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 50 } },
        { name: 'cursor', schema: { type: 'string', maxLength: 200 }, description: 'The `next` of the page before' },
      ],
      success: [200], response: AUDIT_PAGE_SCHEMA, refusals: [503],
    },
    handler: async (req) => {
      const q = queryOf(req);
      const from = instantOf('from', q.get('from'), false);
      const to = instantOf('to', q.get('to'), true);
      if (from !== null && to !== null && to <= from) throw fail('invalid_query', 'to must come after from');
      const cursor = q.get('cursor');
      const after = cursor === null ? null : readAuditCursor(cursor);
      if (cursor !== null && after === null) throw fail('invalid_query', 'cursor must be the `next` of a page before');
      const limit = q.int('limit');
      // Postgres away or busy: 503 with Retry-After (src/http/server.ts).
      const page = await auditPage(deps, {
        tenant: principalOf(req).bound, from, to, keyId: q.get('keyId'), operation: q.get('operation'), after, limit,
      });
      const last = page.entries[page.entries.length - 1];
      const view: AuditPageView = { entries: page.entries.map(entryView), next: page.more ? auditCursor(last.at, last.id) : null };
      return ok(view);
    },
  }];
}
