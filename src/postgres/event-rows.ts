/**
 * The events an earlier version archived one row per entry (`laurel_events_rows`, indexed by user),
 * before the log was archived in batches (`laurel_log`, src/postgres/log-archive.ts): kept as they
 * are, read beside the batches (a user's export, an event found by id, the retention's and the
 * erasures' deletes), and the view `laurel_events` of every archived entry, from both. Applied by
 * src/postgres/pool.ts, in its order.
 */

export const EVENT_ROWS_MIGRATIONS = [
  // Earlier versions archived one row per entry in the table laurel_events: it keeps those rows
  // under another name, and laurel_events is the view of every entry, from both.
  `DO $$ BEGIN
     IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relname = 'laurel_events' AND c.relkind = 'r' AND n.nspname = current_schema()) THEN
       ALTER TABLE laurel_events RENAME TO laurel_events_rows;
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS laurel_events_rows (
     prefix      text        NOT NULL,
     partition   integer     NOT NULL,
     stream_id   text        NOT NULL,
     kind        text        NOT NULL,
     tenant      text        NOT NULL,
     user_id     text        NOT NULL,
     occurred_at timestamptz NOT NULL,
     body        jsonb       NOT NULL,
     drained_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (prefix, partition, stream_id)
   )`,
  'CREATE INDEX IF NOT EXISTS laurel_events_user ON laurel_events_rows (prefix, tenant, user_id, occurred_at)',
  `CREATE OR REPLACE VIEW laurel_events AS
     SELECT prefix, partition, stream_id, kind, tenant, user_id, occurred_at, body, drained_at FROM laurel_events_rows
     UNION ALL
     SELECT l.prefix, l.partition, split_part(e.line, E'\t', 1), split_part(e.line, E'\t', 2),
            coalesce(b.body->>'t', ''), coalesce(b.body->>'u', ''),
            to_timestamp(coalesce((b.body->>'ts')::float8, split_part(e.line, '-', 1)::float8) / 1000.0), b.body, l.drained_at
     FROM laurel_log l
     CROSS JOIN LATERAL string_to_table(l.lines, E'\n') AS e(line)
     CROSS JOIN LATERAL (SELECT split_part(e.line, E'\t', 3)::jsonb AS body) AS b`,
];
