/**
 * What a log drainer knows of the users' rows in `laurel_rollup_users`
 * (src/postgres/analytics/rollups.ts): each user's last active day as it last read or wrote it. A
 * batch in which a known user is active on no later day, and that sets nothing of them (no
 * identification), changes nothing of their row, so the rollup neither reads nor locks it: on a
 * steady workload most events are a returning user's second or later of the day.
 *
 * Why a day known here is never later than the stored one: a row's last active day only moves
 * forward, and a row is only ever deleted (a user's erasure, a tenant's deletion, src/postgres/erasure.ts
 * and tenant-erasure.ts). Every statement that deletes from the table moves its epoch
 * (`laurel_rollup_users_epoch`, a trigger), which the archive's transaction reads first: a drainer
 * that sees it moved forgets every user. A deletion that commits while a transaction of the drain
 * runs is seen by the drain's next transaction.
 */

/** Users a drainer remembers (about 100 bytes each). */
const KNOWN_USERS = 200_000;

/**
 * The epoch and its trigger, and the table's fill factor. Each is made only when missing: a
 * trigger's or a storage parameter's change locks the table against the drain's writes, and the
 * migrations run again whenever laurel's version changes them (src/postgres/pool.ts).
 */
export const KNOWN_USERS_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_rollup_users_epoch (
     one    boolean PRIMARY KEY DEFAULT true CHECK (one),
     epoch  bigint  NOT NULL
   )`,
  'INSERT INTO laurel_rollup_users_epoch (one, epoch) VALUES (true, 0) ON CONFLICT (one) DO NOTHING',
  `CREATE OR REPLACE FUNCTION laurel_rollup_users_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE laurel_rollup_users_epoch SET epoch = epoch + 1;
     RETURN NULL;
   END $$`,
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'laurel_rollup_users_deleted'
                    AND tgrelid = 'laurel_rollup_users'::regclass) THEN
       CREATE TRIGGER laurel_rollup_users_deleted AFTER DELETE OR TRUNCATE ON laurel_rollup_users
       FOR EACH STATEMENT EXECUTE FUNCTION laurel_rollup_users_deleted();
     END IF;
     -- Room on each page for a row's new version: a day's first event updates a row in place,
     -- touching no index (a heap-only update), since the last active day is in none.
     IF NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = 'laurel_rollup_users'::regclass
                    AND 'fillfactor=80' = ANY (coalesce(reloptions, '{}'))) THEN
       ALTER TABLE laurel_rollup_users SET (fillfactor = 80);
     END IF;
   END $$`,
];

/** The statement that reads the table's epoch. */
export const EPOCH_SQL = 'SELECT epoch::text AS epoch FROM laurel_rollup_users_epoch';

export class KnownUsers {
  /** By `tenant \0 user`: the last active day (a UTC day number; null: none yet), oldest noted first. */
  private readonly days = new Map<string, number | null>();
  private epoch: string | null = null;

  constructor(private readonly max = KNOWN_USERS) {}

  /** The table's epoch as a transaction read it: everything known is forgotten when it moved. */
  at(epoch: string): void {
    if (epoch === this.epoch) return;
    this.days.clear();
    this.epoch = epoch;
  }

  /**
   * Of the users a pass saw without knowing them (active on one day, identifying nothing), the
   * share that were returning ones, active before that day: a moving average over passes.
   */
  private returningShare = 0;

  /** Notes a pass's users it did not know (`seen`) and how many of them were returning ones. */
  noteUnknown(seen: number, returning: number): void {
    if (seen > 0) this.returningShare = 0.8 * this.returningShare + 0.2 * (returning / seen);
  }

  /**
   * Whether the users it does not know have mostly been returning ones (a drainer started on a
   * population it has not seen yet), so worth moving in one statement before reading; on a launch
   * day they are new, and read at once.
   */
  unknownMostlyReturning(): boolean {
    return this.returningShare >= 0.5;
  }

  /** Whether the user's row is known to be there (read or written since the table's epoch). */
  has(key: string): boolean {
    return this.days.has(key);
  }

  /** Whether a batch with these active days (ascending) and no identification changes nothing of the user's stored row. */
  unchanged(key: string, activeDays: readonly number[]): boolean {
    if (!this.days.has(key)) return false;
    if (activeDays.length === 0) return true;
    const last = this.days.get(key) ?? null;
    return last !== null && activeDays[activeDays.length - 1] <= last;
  }

  /** Notes users' rows as a committed transaction left them. */
  note(rows: Iterable<[key: string, last: number | null]>): void {
    for (const [key, last] of rows) {
      this.days.delete(key);
      this.days.set(key, last);
    }
    for (const key of this.days.keys()) {
      if (this.days.size <= this.max) break;
      this.days.delete(key);
    }
  }
}
