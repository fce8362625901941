/**
 * A user's entries in the archived event log, for their export (src/engine/users/export.ts): the
 * archive keeps each partition's entries as lines of text in batches (`laurel_log`,
 * src/postgres/log-archive.ts), not indexed by user, so this walks the user's partition in the
 * batches' order, a window of batches at a time (each statement bounded as the api's statements
 * are: src/postgres/pool.ts), and reads of a window only the batches whose text names the user, a
 * few per statement; before them, the rows an earlier version archived one entry each
 * (`laurel_events_rows`, indexed by user). Nothing is held between statements: no transaction, no
 * lock, and a user with a million entries is read a chunk at a time.
 */
import type pg from 'pg';
import { compareStreamIds } from '../model/log.js';

/** An archived entry of the user: its stream id, kind and body (JSON text, as archived). */
export interface UserLine {
  id: string;
  kind: string;
  body: string;
  /** The entry's time (its body's `ts`, ms on laurel's clock), when it has one. */
  ts: number | null;
}

/** Batches of the archive a window spans (each holds up to 1,000 entries of the partition: src/engine/log-drain/drain.ts). */
const WINDOW = 256;
/** Batches naming the user read per statement: what one statement hands over at most is a few MB. */
const MATCHED = 16;
/** Rows of the earlier version's table per statement. */
const ROWS = 1000;

/** The partition's cursor: the last entry the archive holds ('' when it holds none). */
export async function archivedUpTo(pool: pg.Pool, prefix: string, partition: number): Promise<string> {
  const { rows } = await pool.query<{ last_id: string }>(
    'SELECT last_id FROM laurel_log_cursor WHERE prefix = $1 AND partition = $2', [prefix, partition],
  );
  return rows[0]?.last_id ?? '';
}

/**
 * An entry of the user's as a line, or null when its body is another's: its text must name them
 * (`"u":<id as JSON>`, cheap), then its tenant and user as parsed.
 */
export function usersLine(id: string, kind: string, body: string, needle: string, tenant: string, userId: string): UserLine | null {
  if (!body.includes(needle)) return null;
  const e = JSON.parse(body) as { t?: unknown; u?: unknown; ts?: unknown };
  if (e.t !== tenant || e.u !== userId) return null;
  return { id, kind, body, ts: typeof e.ts === 'number' ? e.ts : null };
}

/** The `"u":<id>` text a body of the user holds. */
export function userNeedle(userId: string): string {
  return `"u":${JSON.stringify(userId)}`;
}

/**
 * The user's archived entries up to `upTo` (the partition's cursor as read before), oldest first,
 * a chunk at a time: the earlier version's rows, then the batches.
 */
export async function* archivedLinesOf(
  pool: pg.Pool, prefix: string, partition: number, tenant: string, userId: string, upTo: string,
): AsyncGenerator<UserLine[]> {
  let after: [Date | null, string] = [null, ''];
  for (;;) {
    const { rows } = await pool.query<{ occurred_at: Date; stream_id: string; kind: string; body: string }>(
      `SELECT occurred_at, stream_id, kind, body::text AS body FROM laurel_events_rows
       WHERE prefix = $1 AND tenant = $2 AND user_id = $3 AND ($4::timestamptz IS NULL OR (occurred_at, stream_id) > ($4, $5))
       ORDER BY occurred_at, stream_id LIMIT ${ROWS}`,
      [prefix, tenant, userId, ...after],
    );
    if (rows.length > 0) yield rows.map((r) => ({ id: r.stream_id, kind: r.kind, body: r.body, ts: r.occurred_at.getTime() }));
    if (rows.length < ROWS) break;
    const last = rows[rows.length - 1];
    after = [last.occurred_at, last.stream_id];
  }
  if (upTo === '') return;
  const needle = userNeedle(userId);
  let from = '';
  for (;;) {
    // A window of the partition's batches, by their ids alone (the index, no text read).
    const { rows: window } = await pool.query<{ first_id: string }>(
      `SELECT first_id FROM laurel_log WHERE prefix = $1 AND partition = $2 AND first_id > $3 ORDER BY first_id LIMIT ${WINDOW}`,
      [prefix, partition, from],
    );
    if (window.length === 0) return;
    const end = window[window.length - 1].first_id;
    // The window's batches whose text names the user, a few at a time.
    for (;;) {
      const { rows } = await pool.query<{ first_id: string; lines: string }>(
        `SELECT first_id, lines FROM laurel_log
         WHERE prefix = $1 AND partition = $2 AND first_id > $3 AND first_id <= $4 AND strpos(lines, $5) > 0
         ORDER BY first_id LIMIT ${MATCHED}`,
        [prefix, partition, from, end, needle],
      );
      const out: UserLine[] = [];
      for (const row of rows) {
        for (const line of row.lines.split('\n')) {
          const tab = line.indexOf('\t');
          const tab2 = line.indexOf('\t', tab + 1);
          const id = line.slice(0, tab);
          if (compareStreamIds(id, upTo) > 0) continue;
          const mine = usersLine(id, line.slice(tab + 1, tab2), line.slice(tab2 + 1), needle, tenant, userId);
          if (mine !== null) out.push(mine);
        }
      }
      if (out.length > 0) yield out;
      if (rows.length < MATCHED) break;
      from = rows[rows.length - 1].first_id;
    }
    if (window.length < WINDOW) return;
    from = end;
  }
}
