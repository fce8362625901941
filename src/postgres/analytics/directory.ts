/**
 * The user directory (docs/dashboard.md, "Users"): the rows of `laurel_rollup_users`, one per user
 * the log drain has seen, with what identifications set of the user (src/postgres/analytics/rollups.ts
 * writes them in the archive's transaction), searched by `GET /admin/v1/users`: by id prefix, by
 * email prefix (letter case aside), by user attributes, a page at a time in id order, each page
 * read from an index:
 * - the id's order and prefix: `(prefix, tenant, user_id COLLATE "C")`, so a prefix is a range of
 *   it whatever the database's collation, and the next page starts after the last id read;
 * - the email: `(prefix, tenant, lower(email) COLLATE "C", user_id COLLATE "C")`;
 * - the attributes: a GIN index of the jsonb (`@>`), which Postgres combines with the others.
 * The event path never touches it: what the drain reads of a batch it reads anyway.
 */
import type pg from 'pg';
import type { UserListItem } from '../../model/views.js';
import { dayText } from '../../domain/analytics-rollup.js';

export const DIRECTORY_MIGRATIONS = [
  'ALTER TABLE laurel_rollup_users ADD COLUMN IF NOT EXISTS email text',
  'ALTER TABLE laurel_rollup_users ADD COLUMN IF NOT EXISTS name text',
  `ALTER TABLE laurel_rollup_users ADD COLUMN IF NOT EXISTS attributes jsonb NOT NULL DEFAULT '{}'`,
  'ALTER TABLE laurel_rollup_users ADD COLUMN IF NOT EXISTS emails_off boolean NOT NULL DEFAULT false',
  'CREATE INDEX IF NOT EXISTS laurel_rollup_users_id ON laurel_rollup_users (prefix, tenant, user_id COLLATE "C")',
  `CREATE INDEX IF NOT EXISTS laurel_rollup_users_email ON laurel_rollup_users (prefix, tenant, lower(email) COLLATE "C", user_id COLLATE "C")
   WHERE email IS NOT NULL`,
  'CREATE INDEX IF NOT EXISTS laurel_rollup_users_attributes ON laurel_rollup_users USING gin (attributes jsonb_path_ops)',
];

export interface UserSearch {
  /** Users whose id starts with it. */
  idPrefix: string | null;
  /** Users whose email starts with it, letter case aside. */
  emailPrefix: string | null;
  /** Users with every one of these attribute values. */
  attributes: Map<string, string> | null;
  /** The page's size. */
  limit: number;
  /** The last id of the page before (the page starts after it); null: the first page. */
  after: string | null;
}

/** `text` with LIKE's own characters escaped, then `%`: the texts that start with it. */
function startsWith(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface Row {
  user_id: string;
  email: string | null;
  name: string | null;
  attributes: Record<string, string>;
  first_ms: string;
  last_active: number | null;
}

/** A page of the tenant's users matching `search`, in id order (bytewise), and the cursor of the next page (null: none). */
export async function searchUsers(
  pool: pg.Pool, prefix: string, tenant: string, search: UserSearch,
): Promise<{ users: UserListItem[]; next: string | null }> {
  const where = ['prefix = $1', 'tenant = $2'];
  const params: unknown[] = [prefix, tenant];
  const add = (sql: (at: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (search.idPrefix !== null) add((at) => `user_id COLLATE "C" LIKE ${at}`, startsWith(search.idPrefix));
  if (search.emailPrefix !== null) add((at) => `lower(email) COLLATE "C" LIKE ${at}`, startsWith(search.emailPrefix.toLowerCase()));
  if (search.attributes !== null) add((at) => `attributes @> ${at}::jsonb`, JSON.stringify(Object.fromEntries(search.attributes)));
  if (search.after !== null) add((at) => `user_id COLLATE "C" > ${at}`, search.after);
  // One more than a page: whether there is a next one.
  params.push(search.limit + 1);
  const { rows } = await pool.query<Row>(
    `SELECT user_id, email, name, attributes, first_ms, last_active FROM laurel_rollup_users
     WHERE ${where.join(' AND ')} ORDER BY user_id COLLATE "C" LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, search.limit);
  return {
    users: page.map((r) => ({
      id: r.user_id, email: r.email, name: r.name, attributes: r.attributes,
      firstSeen: new Date(Number(r.first_ms)).toISOString(), lastActive: r.last_active === null ? null : dayText(r.last_active),
    })),
    next: rows.length > search.limit ? page[page.length - 1].user_id : null,
  };
}
