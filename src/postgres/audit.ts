/**
 * The audit log in Postgres (docs/api.md, "Audit log"): `laurel_audit`, one row per Admin API
 * write, copied from its Redis queue by the workers (src/engine/audit/drain.ts), listed newest
 * first by `GET /admin/v1/audit`, pruned past LAUREL_AUDIT_RETENTION_DAYS, and rewritten without a
 * user that is erased (src/engine/erasure/pass.ts).
 */
import type pg from 'pg';
import { AUDIT_TIME_END, withoutNeedles, withoutUser, type AuditEntry } from '../domain/audit.js';
import { containedNeedlesOf, exactNeedlesOf, marksOf, type ErasedUser } from '../domain/erasure.js';

export const AUDIT_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_audit (
     prefix     text        NOT NULL,
     id         text        NOT NULL,
     at         timestamptz NOT NULL,
     key_id     text        NOT NULL,
     key_name   text        NOT NULL,
     tenant     text,
     operation  text        NOT NULL,
     ids        text[]      NOT NULL,
     body       jsonb,
     status     integer     NOT NULL,
     PRIMARY KEY (prefix, id)
   )`,
  // Listed newest first, of every tenant or of one; pruned by time.
  'CREATE INDEX IF NOT EXISTS laurel_audit_at ON laurel_audit (prefix, at DESC, id DESC)',
  'CREATE INDEX IF NOT EXISTS laurel_audit_tenant ON laurel_audit (prefix, tenant, at DESC, id DESC)',
  // The request that made the write (src/http/request-id.ts); null in rows written before.
  'ALTER TABLE laurel_audit ADD COLUMN IF NOT EXISTS request_id text',
];

/** SQLSTATE class of data a statement could not take (a text Postgres refuses, say). */
const DATA_EXCEPTION = '22';

const COLUMNS = 11;

async function insertRows(pool: pg.Pool, prefix: string, entries: AuditEntry[]): Promise<void> {
  const params: unknown[] = [];
  const rows = entries.map((e, i) => {
    params.push(prefix, e.id, new Date(e.at).toISOString(), e.keyId, e.keyName, e.tenantId, e.operation, e.ids,
      e.body === null ? null : JSON.stringify(e.body), e.status, e.requestId);
    return `(${Array.from({ length: COLUMNS }, (_, j) => `$${i * COLUMNS + j + 1}`).join(', ')})`;
  });
  await pool.query(
    `INSERT INTO laurel_audit (prefix, id, at, key_id, key_name, tenant, operation, ids, body, status, request_id)
     VALUES ${rows.join(', ')} ON CONFLICT (prefix, id) DO NOTHING`,
    params,
  );
}

/**
 * Writes entries, each once whoever writes it again (its id). A batch Postgres refuses for its
 * data is written one entry at a time, and an entry it still refuses without its body, which a
 * note replaces: an entry is never dropped for what it holds.
 */
export async function insertAuditEntries(pool: pg.Pool, prefix: string, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  try {
    await insertRows(pool, prefix, entries);
  } catch (err) {
    if (!String((err as { code?: unknown }).code ?? '').startsWith(DATA_EXCEPTION)) throw err;
    for (const e of entries) {
      await insertRows(pool, prefix, [e]).catch(async (one: unknown) => {
        if (!String((one as { code?: unknown }).code ?? '').startsWith(DATA_EXCEPTION)) throw one;
        await insertRows(pool, prefix, [{ ...e, body: `[not kept: Postgres refused it (${(one as Error).message})]` }]);
      });
    }
  }
}

export interface AuditFilter {
  /** One tenant's entries only (a key bound to it); null: every entry. */
  tenant: string | null;
  /** From this instant, included (ms). */
  from: number | null;
  /** Up to this instant, excluded (ms). */
  to: number | null;
  keyId: string | null;
  operation: string | null;
  /** The entry the page before ended with: this page starts after it. */
  after: { at: number; id: string } | null;
  limit: number;
}

interface Row {
  id: string;
  at: Date;
  key_id: string;
  key_name: string;
  tenant: string | null;
  operation: string;
  ids: string[];
  body: unknown;
  status: number;
  request_id: string | null;
}

/** A page of entries, newest first, and whether more follow. */
export async function listAuditEntries(pool: pg.Pool, prefix: string, f: AuditFilter): Promise<{ entries: AuditEntry[]; more: boolean }> {
  // The end of laurel's calendar (to=9999-12-31) is past what an ISO text of four digits says.
  const iso = (ms: number | null) => (ms === null ? null : ms >= AUDIT_TIME_END ? 'infinity' : new Date(ms).toISOString());
  const { rows } = await pool.query<Row>(
    `SELECT id, at, key_id, key_name, tenant, operation, ids, body, status, request_id FROM laurel_audit
     WHERE prefix = $1 AND ($2::text IS NULL OR tenant = $2)
       AND ($3::timestamptz IS NULL OR at >= $3) AND ($4::timestamptz IS NULL OR at < $4)
       AND ($5::text IS NULL OR key_id = $5) AND ($6::text IS NULL OR operation = $6)
       AND ($7::timestamptz IS NULL OR (at, id) < ($7, $8::text))
     ORDER BY at DESC, id DESC LIMIT $9`,
    [prefix, f.tenant, iso(f.from), iso(f.to), f.keyId, f.operation, iso(f.after?.at ?? null), f.after?.id ?? '', f.limit + 1],
  );
  const entries = rows.slice(0, f.limit).map((r): AuditEntry => ({
    id: r.id, at: r.at.getTime(), keyId: r.key_id, keyName: r.key_name, tenantId: r.tenant, operation: r.operation,
    ids: r.ids, body: r.body, status: r.status, requestId: r.request_id,
  }));
  return { entries, more: rows.length > f.limit };
}

/** Rows deleted per statement: a long retention's first prune holds no lock long. */
const PRUNE_CHUNK = 5000;

/** Deletes the entries older than `before` (ms); answers how many. */
export async function pruneAuditEntries(pool: pg.Pool, prefix: string, before: number): Promise<number> {
  let n = 0;
  for (;;) {
    const r = await pool.query(
      `DELETE FROM laurel_audit WHERE prefix = $1 AND id IN (
         SELECT id FROM laurel_audit WHERE prefix = $1 AND at < $2 LIMIT ${PRUNE_CHUNK})`,
      [prefix, new Date(before).toISOString()],
    );
    n += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < PRUNE_CHUNK) return n;
  }
}

/**
 * The entries of the user's tenant that name an erased user, rewritten without them
 * (src/domain/audit.ts withoutUser): what they touched and their bodies; answers how many.
 */
/** An audit log row as a user's export lists it. */
export interface AuditRow {
  id: string;
  at: Date;
  operation: string;
  ids: string[];
  body: unknown;
}

/**
 * The audit log's rows that may name the user (their export lists those that do, their erasure
 * rewrites them): of their tenant or the whole account, by an id, or a string holding their id (as
 * JSON), email or device tokens. Oldest first.
 */
export async function auditRowsNaming(pool: pg.Pool, prefix: string, who: Pick<ErasedUser, 'tenant' | 'userId' | 'profile'>): Promise<AuditRow[]> {
  const { rows } = await pool.query<AuditRow>(
    `SELECT id, at, operation, ids, body FROM laurel_audit
     WHERE prefix = $1 AND (tenant = $2 OR tenant IS NULL)
       AND ($3 = ANY (ids) OR EXISTS (SELECT 1 FROM unnest($4::text[]) AS m WHERE strpos(body::text, m) > 0))
     ORDER BY at, id`,
    [prefix, who.tenant, who.userId, marksOf({ ...who, erasureId: '' })],
  );
  return rows;
}

export async function eraseFromAudit(pool: pg.Pool, prefix: string, who: ErasedUser): Promise<number> {
  // The entries of the user's tenant, and those of the whole account (a write made without a
  // tenant that names them: a boost for the default tenant's user), that name them: by an id, an
  // object of theirs, or a string holding their email or device tokens (their name alone is no
  // sign: another's text may hold it).
  const rows = await auditRowsNaming(pool, prefix, who);
  let n = 0;
  for (const row of rows) {
    const named = withoutUser(row.body, who.userId, who.erasureId);
    const scrubbed = withoutNeedles(named === null ? row.body : named.body, exactNeedlesOf(who), containedNeedlesOf(who), who.erasureId);
    const body = scrubbed ?? named;
    const ids = row.ids.map((id) => (id === who.userId ? who.erasureId : id));
    if (body === null && ids.every((id, i) => id === row.ids[i])) continue;
    const next = body === null ? row.body : body.body;
    await pool.query('UPDATE laurel_audit SET ids = $3, body = $4 WHERE prefix = $1 AND id = $2',
      [prefix, row.id, ids, next === null ? null : JSON.stringify(next)]);
    n++;
  }
  return n;
}
