/**
 * Column compression, for the statements a table's module has run at every start-up (its
 * `…_EVERY_START`, applied by src/postgres/pool.ts).
 */

/**
 * A column compressed with lz4 where the server has it (PostgreSQL 14 built with it, as Debian's
 * 15 is); rows written before stay as they are. Once: the ALTER locks the table, so it waits 2 s at
 * most for its readers to finish, and a later start-up tries again.
 */
export function lz4(table: string, column: string): string {
  return `DO $$ BEGIN
     IF current_setting('server_version_num')::int >= 140000
        AND EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
       IF (SELECT attcompression FROM pg_attribute WHERE attrelid = '${table}'::regclass AND attname = '${column}') <> 'l' THEN
         PERFORM set_config('lock_timeout', '2s', true);
         ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4;
       END IF;
     END IF;
   EXCEPTION WHEN lock_not_available OR feature_not_supported THEN NULL;
   END $$`;
}
