/**
 * An archived event found by its id (src/engine/fairplay/find-event.ts): the archive keeps each
 * partition's entries as lines of text in batches (`laurel_log`, src/postgres/log-archive.ts), not
 * indexed by event id, so this reads every batch whose lines hold the id's text (one partition's
 * when the user is known) and parses the line that is the event. The cost grows with the archive:
 * a statement of the api's pool is bounded (src/postgres/pool.ts), and past it the caller answers
 * 503. Entries an earlier version archived one row each (`laurel_events_rows`) are read too.
 */
import type pg from 'pg';

/** An archived entry: its stream id, partition and body (JSON, with the entry's own fields). */
export interface ArchivedLine {
  id: string;
  partition: number;
  body: string;
}

/** The `event` entry of id `eventId` (a UUID: no character of it needs escaping), or null. */
export async function archivedEvent(pool: pg.Pool, prefix: string, eventId: string, partition: number | null): Promise<ArchivedLine | null> {
  const needle = `"e":"${eventId}"`;
  const where = partition === null ? '' : ' AND partition = $3';
  const params: unknown[] = partition === null ? [prefix, needle] : [prefix, needle, partition];
  const { rows } = await pool.query(`SELECT partition, lines FROM laurel_log WHERE prefix = $1 AND strpos(lines, $2) > 0${where}`, params);
  for (const row of rows) {
    for (const line of (row.lines as string).split('\n')) {
      if (!line.includes(needle)) continue;
      const tab = line.indexOf('\t');
      const tab2 = line.indexOf('\t', tab + 1);
      if (line.slice(tab + 1, tab2) !== 'event') continue;
      return { id: line.slice(0, tab), partition: Number(row.partition), body: line.slice(tab2 + 1) };
    }
  }
  const old = await pool.query(
    `SELECT partition, stream_id, body::text AS body FROM laurel_events_rows WHERE prefix = $1 AND kind = 'event' AND body->>'e' = $2${where} LIMIT 1`,
    partition === null ? [prefix, eventId] : [prefix, eventId, partition],
  );
  const r = old.rows[0];
  return r === undefined ? null : { id: String(r.stream_id), partition: Number(r.partition), body: String(r.body) };
}
