/**
 * The analytics rollups in Postgres (docs/dashboard.md, "Analytics"), written in the archive's
 * transaction (src/postgres/log-archive.ts), so each entry is counted exactly once:
 * - `laurel_rollup_days`: per tenant and UTC day, the events, the achievements completed, the users
 *   active (an event or an API completion), the users first seen and those of them in the control
 *   group;
 * - `laurel_rollup_metrics`, `laurel_rollup_achievements`: events per metric, completions per
 *   achievement, per tenant and day;
 * - `laurel_rollup_users`: one row per user (first seen, last active day, the first day they were
 *   active 14 days or more after their first, the control group), from which the daily counts
 *   above are exact; and what identifications set of the user (email, name, attributes): the user
 *   directory that `GET /admin/v1/users` searches (src/postgres/analytics/directory.ts);
 * - `laurel_rollup_retention`: the users first seen on a day who were first active again on a day
 *   14 days or more later, per group.
 * A user's entries come in the log's order (one partition holds them); a day earlier than the
 * user's last active day (the manual clock moved back) is not counted active again.
 */
import type pg from 'pg';
import { applyIdentity, dayText, DAY_MS, identityChanged, type BatchRollup, type Identity } from '../../domain/analytics-rollup.js';
import { RETENTION_DAYS } from '../../domain/analytics.js';
import { DIRECTORY_MIGRATIONS } from './directory.js';
import { EPOCH_SQL, KNOWN_USERS_MIGRATIONS, type KnownUsers } from './known-users.js';
import type { ArchiveStep } from '../log-archive.js';

export const ROLLUP_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_rollup_days (
     prefix       text    NOT NULL,
     tenant       text    NOT NULL,
     day          date    NOT NULL,
     events       bigint  NOT NULL DEFAULT 0,
     completions  bigint  NOT NULL DEFAULT 0,
     active_users bigint  NOT NULL DEFAULT 0,
     new_users    bigint  NOT NULL DEFAULT 0,
     new_control  bigint  NOT NULL DEFAULT 0,
     PRIMARY KEY (prefix, tenant, day)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_rollup_metrics (
     prefix  text   NOT NULL,
     tenant  text   NOT NULL,
     day     date   NOT NULL,
     metric  text   NOT NULL,
     events  bigint NOT NULL,
     PRIMARY KEY (prefix, tenant, day, metric)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_rollup_achievements (
     prefix       text   NOT NULL,
     tenant       text   NOT NULL,
     day          date   NOT NULL,
     achievement  text   NOT NULL,
     completions  bigint NOT NULL,
     PRIMARY KEY (prefix, tenant, day, achievement)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_rollup_users (
     prefix       text    NOT NULL,
     tenant       text    NOT NULL,
     user_id      text    NOT NULL,
     first_ms     bigint  NOT NULL,
     control      boolean NOT NULL,
     last_active  integer,
     retained     integer,
     PRIMARY KEY (prefix, tenant, user_id)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_rollup_retention (
     prefix        text    NOT NULL,
     tenant        text    NOT NULL,
     first_day     date    NOT NULL,
     control       boolean NOT NULL,
     retained_day  date    NOT NULL,
     users         bigint  NOT NULL,
     PRIMARY KEY (prefix, tenant, first_day, control, retained_day)
   )`,
  // The archive's batches rolled up: the drain rolls up what it archives; what an earlier version
  // archived is rolled up by the backfill (src/postgres/analytics/backfill.ts).
  'ALTER TABLE laurel_log ADD COLUMN IF NOT EXISTS rolled boolean NOT NULL DEFAULT false',
  'CREATE INDEX IF NOT EXISTS laurel_log_unrolled ON laurel_log (prefix, partition, first_id) WHERE NOT rolled',
  ...DIRECTORY_MIGRATIONS,
  ...KNOWN_USERS_MIGRATIONS,
];

interface StoredUser {
  tenant: string;
  user_id: string;
  first_ms: string;
  control: boolean;
  last_active: number | null;
  retained: number | null;
  email: string | null;
  name: string | null;
  attributes: Record<string, string>;
  emails_off: boolean;
}

const NO_IDENTITY: Identity = { email: null, name: null, attributes: {}, emailsOff: false };

function add(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

const sorted = <T>(m: Map<string, T>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The rows of the users a batch saw ($1 the prefix, $2 and $3 their tenants and ids, in the order
 * their rows are locked: the caller sorts them, so two drainers lock in one order), each found by
 * its whole key whatever the planner knows of the table. A join of the two let a planner without
 * statistics of the directory (a new installation's, until it is first analysed) read every row
 * of the tenant, once per user (1.5 ms a user at 100,000 rows: the index on (prefix, tenant,
 * user_id "C") compared in the column's own collation serves the prefix and the tenant only) or
 * once per batch; a lookup per user (LATERAL), its id compared in "C", is an index's condition on
 * all three. Equality is the same in both collations (the database's are deterministic).
 */
export const STORED_USERS_SQL =
  `SELECT u.tenant, u.user_id, u.first_ms, u.control, u.last_active, u.retained, u.email, u.name, u.attributes, u.emails_off
   FROM unnest($2::text[], $3::text[]) AS i(tenant, user_id)
   CROSS JOIN LATERAL (
     SELECT * FROM laurel_rollup_users r
     WHERE r.prefix = $1 AND r.tenant = i.tenant AND r.user_id = i.user_id COLLATE "C" FOR UPDATE
   ) u`;

/**
 * A returning user's new active day, in one statement ($1 the prefix; $2, $3 and $4 the users'
 * tenants, ids and the day, one each): their row's last active day moved to it, and the day they
 * were retained set when it is the first 14 days or more after their first, where the row is
 * earlier (or has none). Answers the rows it moved, as it left them: each was active that day
 * for the first time, and retained that day when `retained` is the day (a row moved was last
 * active before it, so retained before it or not at all). A user it does not answer has no row,
 * or is active that day or later already: the read of the rows (STORED_USERS_SQL) decides for
 * them. One lookup of each user instead of a read and a write: on a steady workload, a third of
 * the events are a user's first of the day.
 *
 * Each user is found by their whole key as in STORED_USERS_SQL (a lookup per user, its id
 * compared in "C"; `OFFSET 0` keeps the planner from turning the lookups back into a join of the
 * table, which without statistics it plans as a hash join over the tenant), and the row updated
 * by its place (ctid). A row another transaction updated meanwhile is not at that place any more
 * and is left alone: its user is then read as the others are.
 */
export const NEW_DAY_SQL =
  `UPDATE laurel_rollup_users r
   SET last_active = m.day,
       retained = CASE WHEN r.retained IS NULL AND m.day >= floor(r.first_ms / ${DAY_MS}::numeric) + ${RETENTION_DAYS} THEN m.day ELSE r.retained END
   FROM (
     SELECT x.row, i.day FROM unnest($2::text[], $3::text[], $4::int[]) AS i(tenant, user_id, day)
     CROSS JOIN LATERAL (
       SELECT u.ctid AS row FROM laurel_rollup_users u
       WHERE u.prefix = $1 AND u.tenant = i.tenant AND u.user_id = i.user_id COLLATE "C" OFFSET 0
     ) x
   ) m
   WHERE r.ctid = m.row AND (r.last_active IS NULL OR r.last_active < m.day)
   RETURNING r.tenant, r.user_id, r.first_ms, r.control, r.last_active, r.retained`;

interface NewDay {
  tenant: string;
  user_id: string;
  first_ms: string;
  control: boolean;
  last_active: number;
  retained: number | null;
}

/**
 * Adds `r` to the rollups, in `client`'s transaction. With what the drainer knows of the users'
 * rows (src/postgres/analytics/known-users.ts), a known user the batch changes nothing of is
 * neither read nor written; answers each user row read or written, as the transaction leaves it,
 * for the drainer to note once it commits.
 */
export async function writeRollup(
  client: pg.ClientBase, prefix: string, r: BatchRollup, known?: KnownUsers,
): Promise<[key: string, last: number | null][]> {
  const noted: [key: string, last: number | null][] = [];
  const seen = sorted(r.users).filter(([key, u]) => known === undefined || u.ident !== undefined || !known.unchanged(key, u.activeDays))
    .map(([, u]) => u);
  if (seen.length === 0) {
    await writeCounts(client, prefix, r, new Map(), new Map(), new Map(), new Map());
    return noted;
  }
  const active = new Map<string, number>();
  const fresh = new Map<string, number>();
  const freshControl = new Map<string, number>();
  const retention = new Map<string, number>();
  // A user active on one day and identifying nothing, whose row the drainer knows is there, or any
  // such user while those it did not know were mostly returning ones: moved to that day in one
  // statement if their row is earlier; the others read (a new user would be looked up for nothing).
  const eligible = known === undefined ? [] : seen.filter((u) => u.ident === undefined && u.activeDays.length === 1);
  const unknown = new Set(eligible.map((u) => `${u.tenant}\0${u.userId}`).filter((key) => !known!.has(key)));
  const oneDay = known?.unknownMostlyReturning() ? eligible : eligible.filter((u) => !unknown.has(`${u.tenant}\0${u.userId}`));
  const moved = new Set<string>();
  let unknownReturning = 0;
  if (oneDay.length > 0) {
    const { rows: days } = await client.query<NewDay>(NEW_DAY_SQL, [prefix, oneDay.map((u) => u.tenant), oneDay.map((u) => u.userId), oneDay.map((u) => u.activeDays[0])]);
    for (const d of days) {
      const key = `${d.tenant}\0${d.user_id}`;
      if (unknown.has(key)) unknownReturning++;
      moved.add(key);
      add(active, `${d.tenant}\0${d.last_active}`, 1);
      if (d.retained === d.last_active) add(retention, `${d.tenant}\0${Math.floor(Number(d.first_ms) / DAY_MS)}\0${d.control}\0${d.retained}`, 1);
      noted.push([key, d.last_active]);
    }
  }
  const rest = moved.size === 0 ? seen : seen.filter((u) => !moved.has(`${u.tenant}\0${u.userId}`));
  if (rest.length === 0) {
    known?.noteUnknown(unknown.size, unknownReturning);
    await writeCounts(client, prefix, r, active, fresh, freshControl, retention);
    return noted;
  }
  const { rows } = await client.query<StoredUser>(STORED_USERS_SQL, [prefix, rest.map((u) => u.tenant), rest.map((u) => u.userId)]);
  const stored = new Map(rows.map((s) => [`${s.tenant}\0${s.user_id}`, s]));
  // The unknown users read who were returning ones (the statement would have moved them).
  for (const u of rest) {
    const key = `${u.tenant}\0${u.userId}`;
    const s = unknown.has(key) ? stored.get(key) : undefined;
    if (s !== undefined && (s.last_active === null || s.last_active < u.activeDays[0])) unknownReturning++;
  }
  known?.noteUnknown(unknown.size, unknownReturning);
  const changed: [tenant: string, user: string, firstMs: number, control: boolean, last: number | null, retained: number | null, who: Identity][] = [];
  for (const u of rest) {
    const s = stored.get(`${u.tenant}\0${u.userId}`);
    const firstMs = s === undefined ? u.firstMs : Number(s.first_ms);
    const control = s === undefined ? u.control : s.control;
    const firstDay = Math.floor(firstMs / DAY_MS);
    let last = s?.last_active ?? null;
    let retained = s?.retained ?? null;
    if (s === undefined) {
      add(fresh, `${u.tenant}\0${firstDay}`, 1);
      if (control) add(freshControl, `${u.tenant}\0${firstDay}`, 1);
    }
    for (const day of u.activeDays) {
      if (last !== null && day <= last) continue;
      last = day;
      add(active, `${u.tenant}\0${day}`, 1);
      if (retained === null && day >= firstDay + RETENTION_DAYS) {
        retained = day;
        add(retention, `${u.tenant}\0${firstDay}\0${control}\0${day}`, 1);
      }
    }
    noted.push([`${u.tenant}\0${u.userId}`, last]);
    const was: Identity = s === undefined ? NO_IDENTITY : { email: s.email, name: s.name, attributes: s.attributes, emailsOff: s.emails_off };
    const who = u.ident === undefined ? was : applyIdentity(was, u.ident);
    if (s === undefined || last !== s.last_active || retained !== s.retained || identityChanged(was, who)) {
      changed.push([u.tenant, u.userId, firstMs, control, last, retained, who]);
    }
  }
  if (changed.length > 0) {
    await client.query(
      `INSERT INTO laurel_rollup_users (prefix, tenant, user_id, first_ms, control, last_active, retained, email, name, attributes, emails_off)
       SELECT $1, t, u, f, c, l, r, e, n, a::jsonb, o
       FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[], $11::boolean[])
         AS i(t, u, f, c, l, r, e, n, a, o)
       ON CONFLICT (prefix, tenant, user_id) DO UPDATE SET last_active = EXCLUDED.last_active, retained = EXCLUDED.retained,
         email = EXCLUDED.email, name = EXCLUDED.name, attributes = EXCLUDED.attributes, emails_off = EXCLUDED.emails_off`,
      [prefix, ...[0, 1, 2, 3, 4, 5].map((i) => changed.map((c) => c[i])),
        changed.map((c) => c[6].email), changed.map((c) => c[6].name), changed.map((c) => JSON.stringify(c[6].attributes)),
        changed.map((c) => c[6].emailsOff)],
    );
  }
  await writeCounts(client, prefix, r, active, fresh, freshControl, retention);
  return noted;
}

/**
 * The counters: the days' (with the users active, first seen and of them in the control group,
 * by `tenant \0 day`), the metrics', the achievements' and the retention's.
 */
async function writeCounts(
  client: pg.ClientBase, prefix: string, r: BatchRollup,
  active: Map<string, number>, fresh: Map<string, number>, freshControl: Map<string, number>, retention: Map<string, number>,
): Promise<void> {
  // The days' counts: one row per tenant and day touched.
  const days = new Map<string, [tenant: string, day: number, events: number, completions: number, active: number, fresh: number, control: number]>();
  const dayRow = (key: string) => {
    let row = days.get(key);
    if (row === undefined) {
      const [tenant, day] = key.split('\0');
      days.set(key, (row = [tenant, Number(day), 0, 0, 0, 0, 0]));
    }
    return row;
  };
  for (const [key, c] of r.days) { const row = dayRow(key); row[2] += c.events; row[3] += c.completions; }
  for (const [key, n] of active) dayRow(key)[4] += n;
  for (const [key, n] of fresh) dayRow(key)[5] += n;
  for (const [key, n] of freshControl) dayRow(key)[6] += n;
  const dayRows = sorted(days).map(([, row]) => row);
  if (dayRows.length > 0) {
    await client.query(
      `INSERT INTO laurel_rollup_days AS d (prefix, tenant, day, events, completions, active_users, new_users, new_control)
       SELECT $1, * FROM unnest($2::text[], $3::date[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
       ON CONFLICT (prefix, tenant, day) DO UPDATE SET events = d.events + EXCLUDED.events, completions = d.completions + EXCLUDED.completions,
         active_users = d.active_users + EXCLUDED.active_users, new_users = d.new_users + EXCLUDED.new_users, new_control = d.new_control + EXCLUDED.new_control`,
      [prefix, dayRows.map((d) => d[0]), dayRows.map((d) => dayText(d[1])), ...[2, 3, 4, 5, 6].map((i) => dayRows.map((d) => d[i]))],
    );
  }
  await addCounts(client, prefix, 'laurel_rollup_metrics', 'metric', 'events', r.metrics);
  await addCounts(client, prefix, 'laurel_rollup_achievements', 'achievement', 'completions', r.achievements);
  if (retention.size > 0) {
    const rows4 = sorted(retention).map(([key, n]) => { const [t, f, c, d] = key.split('\0'); return [t, dayText(Number(f)), c === 'true', dayText(Number(d)), n] as const; });
    await client.query(
      `INSERT INTO laurel_rollup_retention AS r (prefix, tenant, first_day, control, retained_day, users)
       SELECT $1, * FROM unnest($2::text[], $3::date[], $4::boolean[], $5::date[], $6::bigint[])
       ON CONFLICT (prefix, tenant, first_day, control, retained_day) DO UPDATE SET users = r.users + EXCLUDED.users`,
      [prefix, ...[0, 1, 2, 3, 4].map((i) => rows4.map((row) => row[i]))],
    );
  }
}

/** Adds counts keyed `tenant \0 day \0 id` to `table`. */
async function addCounts(client: pg.ClientBase, prefix: string, table: string, idColumn: string, countColumn: string, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  const rows = sorted(counts).map(([key, n]) => { const [t, d, id] = key.split('\0'); return [t, dayText(Number(d)), id, n] as const; });
  await client.query(
    `INSERT INTO ${table} AS x (prefix, tenant, day, ${idColumn}, ${countColumn})
     SELECT $1, * FROM unnest($2::text[], $3::date[], $4::text[], $5::bigint[])
     ON CONFLICT (prefix, tenant, day, ${idColumn}) DO UPDATE SET ${countColumn} = x.${countColumn} + EXCLUDED.${countColumn}`,
    [prefix, ...[0, 1, 2, 3].map((i) => rows.map((row) => row[i]))],
  );
}

/**
 * The archive's step (src/postgres/log-archive.ts) that writes a pass's rollup in its transaction,
 * skipping the user rows `known` says the pass does not change; `known` learns the rows written
 * once the transaction committed.
 */
export function rollupStep(prefix: string, r: BatchRollup, known: KnownUsers): ArchiveStep {
  let noted: [key: string, last: number | null][] = [];
  return {
    async write(client) {
      known.at((await client.query<{ epoch: string }>(EPOCH_SQL)).rows[0].epoch);
      noted = await writeRollup(client, prefix, r, known);
    },
    committed: () => known.note(noted),
  };
}
