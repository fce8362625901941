/**
 * Where a value still shows in an installation: every Redis key name and content, every row of
 * every laurel table of its prefix (the erasure tests look for an erased id, name or email).
 */
import { expect } from 'vitest';
import type pg from 'pg';
import { primaries, type RedisClient } from '../../src/redis/client.js';

/** Every place in the installation's Redis keys where one of `needles` shows: key names and contents. */
export async function redisTraces(redis: RedisClient, prefix: string, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  const check = (where: string, text: string) => { if (needles.some((n) => text.includes(n))) found.push(`${where}: ${text.slice(0, 200)}`); };
  for (const node of primaries(redis)) {
    let cursor = '0';
    do {
      const [next, names] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of names) {
        check('key', key);
        const type = await node.type(key);
        const parts: string[] = type === 'string' ? [String(await node.getBuffer(key))]
          : type === 'hash' ? Object.entries(await node.hgetall(key)).flat()
            : type === 'set' ? await node.smembers(key)
              : type === 'zset' ? await node.zrange(key, 0, -1)
                : type === 'list' ? await node.lrange(key, 0, -1)
                  : type === 'stream' ? (await node.xrange(key, '-', '+')).flatMap(([id, f]) => [id, ...f])
                    : [];
        for (const p of parts) check(key, p);
      }
    } while (cursor !== '0');
  }
  return found;
}

/** Every row of every laurel table and view of the prefix that holds one of `needles`, as text. */
export async function postgresTraces(pool: pg.Pool, prefix: string, needles: string[]): Promise<string[]> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    `SELECT DISTINCT table_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name LIKE 'laurel%' AND column_name = 'prefix'`,
  );
  expect(tables.length).toBeGreaterThan(10);
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    for (const needle of needles) {
      const { rows } = await pool.query(
        `SELECT t::text AS row FROM ${table} t WHERE t.prefix = $1 AND strpos(t::text, $2) > 0 LIMIT 3`, [prefix, needle],
      );
      for (const r of rows) found.push(`${table}: ${String(r.row).slice(0, 300)}`);
    }
  }
  return found;
}
