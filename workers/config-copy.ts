/**
 * Queue `config-copy`: copies the whole configuration (Redis is the source of truth) into Postgres,
 * replacing what was there for this prefix, in one transaction. Runs on every configuration change
 * (one job per version, however many processes notice it) and every few minutes as a safety net.
 */
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { CONFIG_KINDS as KINDS } from '../src/model/entities.js';

export const CONFIG_COPY_QUEUE = 'config-copy';

export async function copyConfig(deps: Deps, pool: pg.Pool): Promise<{ version: number; rows: number }> {
  const { redis, keys, settings } = deps;
  const pipeline = redis.pipeline().get(keys.configVersion);
  for (const kind of KINDS) pipeline.hgetall(keys.config(kind));
  const results = (await pipeline.exec()) ?? [];
  for (const [err] of results) if (err) throw err;
  const version = Number(results[0][1] ?? 0);
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
    for (let i = 0; i < KINDS.length; i++) {
      const entities = results[i + 1][1] as Record<string, string>;
      for (const [id, body] of Object.entries(entities)) {
        await client.query(
          'INSERT INTO laurel_config (prefix, kind, id, body, version) VALUES ($1, $2, $3, $4, $5)',
          [settings.prefix, KINDS[i], id, body, version],
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
