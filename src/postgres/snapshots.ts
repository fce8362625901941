/**
 * Snapshots of Redis in Postgres (src/engine/durability/snapshot.ts takes them,
 * src/engine/durability/restore.ts reads them). Each key is kept as Redis DUMPs it, once per
 * installation (the latest copy taken), with the snapshot that took it:
 * - a user's keys (`laurel_snapshot_users`: one row per user, its keys and `position`, the last
 *   entry of the partition's log its state includes: read together, in one transaction of the
 *   partition's slot);
 * - every other key (`laurel_snapshot_keys`: leaderboards, streak rankings, points totals), with a
 *   digest, so a key that did not change is not written again.
 * `laurel_snapshots` lists the snapshots; `since` is when the earliest of its other keys was read.
 * A snapshot that failed has its `finished_at` and its `error` (why): the reads of the latest
 * snapshots leave it out. What it wrote of users and keys stays, as any later copy of them does.
 */
import type pg from 'pg';

/** `laurel_snapshots`, `laurel_snapshot_users` and `laurel_snapshot_keys` (applied by src/postgres/pool.ts, in its order). */
export const SNAPSHOT_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_snapshots (
     prefix      text        NOT NULL,
     id          bigserial   NOT NULL,
     is_full     boolean     NOT NULL,
     started_at  timestamptz NOT NULL DEFAULT now(),
     finished_at timestamptz,
     since       timestamptz NOT NULL,
     users       integer     NOT NULL DEFAULT 0,
     keys        integer     NOT NULL DEFAULT 0,
     PRIMARY KEY (prefix, id)
   )`,
  // A snapshot that failed, or was interrupted (its process died): finished, with why; never read.
  // Looked up first: the ALTER locks the table, even when the column exists, behind any reader.
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'laurel_snapshots'::regclass AND attname = 'error' AND NOT attisdropped) THEN
       ALTER TABLE laurel_snapshots ADD COLUMN error text;
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS laurel_snapshot_users (
     prefix     text    NOT NULL,
     tenant     text    NOT NULL,
     user_id    text    NOT NULL,
     partition  integer NOT NULL,
     position   text    NOT NULL,
     snapshot   bigint  NOT NULL,
     keys       bytea   NOT NULL,
     PRIMARY KEY (prefix, tenant, user_id)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_snapshot_keys (
     prefix    text   NOT NULL,
     key       text   NOT NULL,
     snapshot  bigint NOT NULL,
     digest    text   NOT NULL,
     dump      bytea  NOT NULL,
     PRIMARY KEY (prefix, key)
   )`,
];

export interface SnapshotRecord {
  id: number;
  startedAt: number;
  finishedAt: number | null;
  /** Why it failed (it has a finishedAt then), or null: running, or finished whole. */
  error: string | null;
  full: boolean;
  users: number;
  keys: number;
  /** What was changed since the snapshot before and is in this one, as when it was read. */
  since: number;
}

export interface UserState {
  tenant: string;
  userId: string;
  partition: number;
  /** The last entry of the partition's log the state includes ('' for none). */
  position: string;
  /** The user's keys: name -> DUMP payload. */
  keys: Map<string, Buffer>;
}

export interface KeyState {
  key: string;
  digest: string;
  dump: Buffer;
}

function record(row: Record<string, unknown>): SnapshotRecord {
  return {
    id: Number(row.id), startedAt: (row.started_at as Date).getTime(), finishedAt: row.finished_at === null ? null : (row.finished_at as Date).getTime(),
    error: (row.error as string | null) ?? null,
    full: row.is_full as boolean, users: Number(row.users), keys: Number(row.keys), since: (row.since as Date).getTime(),
  };
}

/** A user's keys as one value: `<name length>:<name><payload length>:<payload>...`. */
function packKeys(keys: Map<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, dump] of keys) {
    const n = Buffer.from(name);
    parts.push(Buffer.from(`${n.length}:`), n, Buffer.from(`${dump.length}:`), dump);
  }
  return Buffer.concat(parts);
}

function unpackKeys(packed: Buffer): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  let at = 0;
  const next = (): Buffer => {
    const colon = packed.indexOf(0x3a, at);
    const length = Number(packed.subarray(at, colon).toString());
    const value = packed.subarray(colon + 1, colon + 1 + length);
    at = colon + 1 + length;
    return value;
  };
  while (at < packed.length) {
    const name = next().toString();
    keys.set(name, Buffer.from(next()));
  }
  return keys;
}

export class SnapshotStore {
  private readonly pool: pg.Pool;
  private readonly prefix: string;

  constructor(pool: pg.Pool, prefix: string) {
    this.pool = pool;
    this.prefix = prefix;
  }

  /**
   * Waits until no other snapshot of the installation runs, and holds that until `release`: two at
   * once would each keep users read at other times.
   */
  async lock(): Promise<() => Promise<void>> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`laurel-snapshot:${this.prefix}`]);
    } catch (err) {
      client.release();
      throw err;
    }
    return this.unlocking(client);
  }

  private unlocking(client: pg.PoolClient): () => Promise<void> {
    return async () => {
      try {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`laurel-snapshot:${this.prefix}`]);
      } finally {
        client.release();
      }
    };
  }

  /**
   * Like lock, without waiting: null when another snapshot of the installation runs (in this
   * process or another).
   */
  async tryLock(): Promise<(() => Promise<void>) | null> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS got', [`laurel-snapshot:${this.prefix}`]);
      if (rows[0].got) return this.unlocking(client);
    } catch (err) {
      client.release();
      throw err;
    }
    client.release();
    return null;
  }

  /** The snapshots taken, newest first (failed ones too). */
  async list(): Promise<SnapshotRecord[]> {
    const { rows } = await this.pool.query(
      'SELECT * FROM laurel_snapshots WHERE prefix = $1 ORDER BY id DESC', [this.prefix],
    );
    return rows.map(record);
  }

  /** The latest snapshot that finished whole, or null. */
  async latest(): Promise<SnapshotRecord | null> {
    return (await this.latestTwo())[0] ?? null;
  }

  /** The two latest snapshots that finished whole (not failed), newest first. */
  async latestTwo(): Promise<SnapshotRecord[]> {
    const { rows } = await this.pool.query(
      'SELECT * FROM laurel_snapshots WHERE prefix = $1 AND finished_at IS NOT NULL AND error IS NULL ORDER BY id DESC LIMIT 2', [this.prefix],
    );
    return rows.map(record);
  }

  /** Seconds since the latest snapshot that finished whole ended, or null before the first. */
  async age(): Promise<number | null> {
    const { rows } = await this.pool.query<{ age: number | null }>(
      'SELECT extract(epoch FROM now() - max(finished_at))::float8 AS age FROM laurel_snapshots WHERE prefix = $1 AND finished_at IS NOT NULL AND error IS NULL',
      [this.prefix],
    );
    return rows[0]?.age ?? null;
  }

  async begin(full: boolean, since: number): Promise<number> {
    const { rows } = await this.pool.query(
      'INSERT INTO laurel_snapshots (prefix, is_full, since) VALUES ($1, $2, to_timestamp($3 / 1000.0)) RETURNING id',
      [this.prefix, full, since],
    );
    return Number(rows[0].id);
  }

  async finish(id: number, users: number, keys: number): Promise<void> {
    await this.pool.query(
      'UPDATE laurel_snapshots SET finished_at = now(), users = $3, keys = $4 WHERE prefix = $1 AND id = $2', [this.prefix, id, users, keys],
    );
  }

  /** Snapshot `id` failed (`error`: why): finished now, as failed (a row already finished is left as it is). */
  async fail(id: number, error: string): Promise<void> {
    await this.pool.query(
      'UPDATE laurel_snapshots SET finished_at = now(), error = $3 WHERE prefix = $1 AND id = $2 AND finished_at IS NULL', [this.prefix, id, error],
    );
  }

  /**
   * Marks failed every snapshot that has not finished: call it holding the lock (lock or tryLock),
   * when no snapshot of the installation runs, so those are what a process that died left.
   * Answers their ids.
   */
  async failUnfinished(): Promise<number[]> {
    const { rows } = await this.pool.query(
      `UPDATE laurel_snapshots SET finished_at = now(), error = 'interrupted: its process stopped before it finished'
       WHERE prefix = $1 AND finished_at IS NULL RETURNING id`, [this.prefix],
    );
    return rows.map((r) => Number(r.id));
  }

  async saveUsers(snapshot: number, users: UserState[]): Promise<void> {
    if (users.length === 0) return;
    await this.pool.query(
      `INSERT INTO laurel_snapshot_users (prefix, tenant, user_id, partition, position, snapshot, keys)
       SELECT $1, u.tenant, u.user_id, u.partition, u.position, $2, u.keys
       FROM unnest($3::text[], $4::text[], $5::int[], $6::text[], $7::bytea[]) AS u(tenant, user_id, partition, position, keys)
       ON CONFLICT (prefix, tenant, user_id) DO UPDATE
         SET partition = EXCLUDED.partition, position = EXCLUDED.position, snapshot = EXCLUDED.snapshot, keys = EXCLUDED.keys
         WHERE laurel_snapshot_users.snapshot <= EXCLUDED.snapshot`,
      [
        this.prefix, snapshot, users.map((u) => u.tenant), users.map((u) => u.userId), users.map((u) => u.partition),
        users.map((u) => u.position), users.map((u) => packKeys(u.keys)),
      ],
    );
  }

  /** The digests of the other keys as last saved. */
  async keyDigests(): Promise<Map<string, string>> {
    const { rows } = await this.pool.query('SELECT key, digest FROM laurel_snapshot_keys WHERE prefix = $1', [this.prefix]);
    return new Map(rows.map((r) => [r.key as string, r.digest as string]));
  }

  async saveKeys(snapshot: number, keys: KeyState[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query(
      `INSERT INTO laurel_snapshot_keys (prefix, key, snapshot, digest, dump)
       SELECT $1, k.key, $2, k.digest, k.dump FROM unnest($3::text[], $4::text[], $5::bytea[]) AS k(key, digest, dump)
       ON CONFLICT (prefix, key) DO UPDATE SET snapshot = EXCLUDED.snapshot, digest = EXCLUDED.digest, dump = EXCLUDED.dump`,
      [this.prefix, snapshot, keys.map((k) => k.key), keys.map((k) => k.digest), keys.map((k) => k.dump)],
    );
  }

  /** Forgets other keys gone from Redis. */
  async dropKeys(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query('DELETE FROM laurel_snapshot_keys WHERE prefix = $1 AND key = ANY($2)', [this.prefix, keys]);
  }

  /** Every user's latest state, a batch at a time. */
  async *users(batch = 500): AsyncGenerator<UserState[]> {
    let after: [string, string] = ['', ''];
    for (;;) {
      const { rows } = await this.pool.query(
        `SELECT tenant, user_id, partition, position, keys FROM laurel_snapshot_users
         WHERE prefix = $1 AND (tenant, user_id) > ($2, $3) ORDER BY tenant, user_id LIMIT $4`,
        [this.prefix, after[0], after[1], batch],
      );
      if (rows.length === 0) return;
      yield rows.map((r) => ({
        tenant: r.tenant as string, userId: r.user_id as string, partition: Number(r.partition), position: r.position as string,
        keys: unpackKeys(r.keys as Buffer),
      }));
      const last = rows[rows.length - 1];
      after = [last.tenant as string, last.user_id as string];
    }
  }

  /**
   * The rows of the runs kept by buckets of users (src/redis/run-members.ts), and the ranking and
   * members rows of the same runs kept whole, with the snapshot that wrote each.
   */
  async runRows(): Promise<{ buckets: { key: string; snapshot: number }[]; whole: { key: string; snapshot: number }[] }> {
    const { rows: buckets } = await this.pool.query<{ key: string; snapshot: number }>(
      `SELECT key, snapshot::int AS snapshot FROM laurel_snapshot_keys WHERE prefix = $1 AND strpos(key, '}:#m') > 0`, [this.prefix],
    );
    const bases = [...new Set(buckets.map((r) => r.key.slice(0, r.key.indexOf('}:#m') + 2)))];
    const { rows: whole } = await this.pool.query<{ key: string; snapshot: number }>(
      'SELECT key, snapshot::int AS snapshot FROM laurel_snapshot_keys WHERE prefix = $1 AND key = ANY($2)', [this.prefix, bases.flatMap((b) => [`${b}r`, `${b}m`])],
    );
    return { buckets, whole };
  }

  /** Every other key's latest state, a batch at a time. */
  async *keys(batch = 500): AsyncGenerator<KeyState[]> {
    let after = '';
    for (;;) {
      const { rows } = await this.pool.query(
        'SELECT key, digest, dump FROM laurel_snapshot_keys WHERE prefix = $1 AND key > $2 ORDER BY key LIMIT $3',
        [this.prefix, after, batch],
      );
      if (rows.length === 0) return;
      yield rows.map((r) => ({ key: r.key as string, digest: r.digest as string, dump: r.dump as Buffer }));
      after = rows[rows.length - 1].key as string;
    }
  }
}
