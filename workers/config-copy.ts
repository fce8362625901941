/**
 * Queue `config-copy`: copies the whole configuration (Redis is the source of truth) into Postgres,
 * replacing what was there for this prefix, in one transaction. Runs on every configuration change
 * (one job per version, however many processes notice it) and every few minutes as a safety net.
 * What Redis holds is read through the configuration store (src/config/store.ts).
 */
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { CONFIG_KINDS as KINDS } from '../src/model/entities.js';

export const CONFIG_COPY_QUEUE = 'config-copy';

export async function copyConfig(deps: Deps, pool: pg.Pool): Promise<{ version: number; rows: number }> {
  const { store, settings } = deps;
  const { version, entities: stored } = await store.stored();
  const client = await pool.connect();
  let rows = 0;
  try {
    await client.query('BEGIN');
    // Serialise copies of one prefix; an older version never overwrites a newer one.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`laurel-config:${settings.prefix}`]);
    const { rows: [latest] } = await client.query<{ v: string | null }>(
      'SELECT max(version) AS v FROM laurel_config WHERE prefix = $1', [settings.prefix],
    );
    if (latest.v !== null && Number(latest.v) > version) {
      await client.query('ROLLBACK');
      return { version: Number(latest.v), rows: 0 };
    }
    await client.query('DELETE FROM laurel_config WHERE prefix = $1', [settings.prefix]);
    for (const kind of KINDS) {
      for (const [id, body] of Object.entries(stored[kind])) {
        await client.query(
          'INSERT INTO laurel_config (prefix, kind, id, body, version) VALUES ($1, $2, $3, $4, $5)',
          [settings.prefix, kind, id, body, version],
        );
        rows++;
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  return { version, rows };
}
