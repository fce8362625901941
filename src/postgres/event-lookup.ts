/**
 * Archived events found by their ids (src/engine/fairplay/find-event.ts): the archive keeps each
 * partition's entries as lines of text in batches (`laurel_log`, src/postgres/log-archive.ts), not
 * indexed by event id, so this reads, in one statement, every batch whose lines hold one of the
 * ids' text (of the partitions given only, when every id's user is known), and parses the lines
 * that are those events. The cost grows with the archive: a statement of the api's pool is
 * bounded (src/postgres/pool.ts), and past it the caller answers 503. Entries an earlier version
 * archived one row each (`laurel_events_rows`) are read too.
 */
import type pg from 'pg';

/** An archived entry: its stream id, partition and body (JSON, with the entry's own fields). */
export interface ArchivedLine {
  id: string;
  partition: number;
  body: string;
}

/**
 * The `event` entries of the ids asked (UUIDs: no character of them needs escaping), by id; an id
 * not found is not in the answer. `partitions`: null for any, else the only ones to read.
 */
export async function archivedEvents(
  pool: pg.Pool, prefix: string, eventIds: string[], partitions: number[] | null,
): Promise<Map<string, ArchivedLine>> {
  const found = new Map<string, ArchivedLine>();
  const needles = eventIds.map((id) => `"e":"${id}"`);
  const where = partitions === null ? '' : ' AND partition = ANY($3::int[])';
  const params = (first: unknown): unknown[] => (partitions === null ? [prefix, first] : [prefix, first, partitions]);
  const { rows } = await pool.query(
    `SELECT partition, lines FROM laurel_log WHERE prefix = $1 AND EXISTS (SELECT 1 FROM unnest($2::text[]) n WHERE strpos(lines, n) > 0)${where}`,
    params(needles),
  );
  for (const row of rows) {
    for (const line of (row.lines as string).split('\n')) {
      const tab = line.indexOf('\t');
      const tab2 = line.indexOf('\t', tab + 1);
      if (line.slice(tab + 1, tab2) !== 'event') continue;
      // eventEntry writes the id first: `{"e":"<36 characters>"`.
      const id = line.slice(tab2 + 7, tab2 + 43);
      if (eventIds.includes(id) && !found.has(id)) found.set(id, { id: line.slice(0, tab), partition: Number(row.partition), body: line.slice(tab2 + 1) });
    }
  }
  const missing = eventIds.filter((id) => !found.has(id));
  if (missing.length === 0) return found;
  const old = await pool.query(
    `SELECT partition, stream_id, body->>'e' AS e, body::text AS body FROM laurel_events_rows WHERE prefix = $1 AND kind = 'event' AND body->>'e' = ANY($2::text[])${where}`,
    params(missing),
  );
  for (const r of old.rows) found.set(String(r.e), { id: String(r.stream_id), partition: Number(r.partition), body: String(r.body) });
  return found;
}
