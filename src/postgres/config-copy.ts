/**
 * The configuration's copy in Postgres (`laurel_config`): one row per entity (prefix, kind, id), its
 * body as Redis holds it and the configuration's version, replaced whole for the prefix on every
 * change and every few minutes by the workers (workers/config-copy.ts); read back by a restore
 * when Redis lost it (src/engine/durability/restore.ts). Applied by src/postgres/pool.ts, in its
 * order.
 */

export const CONFIG_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_config (
     prefix     text        NOT NULL,
     kind       text        NOT NULL,
     id         text        NOT NULL,
     body       jsonb       NOT NULL,
     version    bigint      NOT NULL,
     copied_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (prefix, kind, id)
   )`,
];
