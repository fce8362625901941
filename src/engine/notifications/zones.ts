/**
 * A change of a user's zone moves what is still pending (docs/notifications.md): the log drainer
 * (src/engine/log-drain/notifications.ts) meets the identification that set `tz`, and in the archive's transaction
 * every scheduled delivery of the user is timed again in the new zone, for its same occasion
 * (src/domain/notifications/timing.ts dueIn). One that the new zone puts in the past goes out at once.
 */
import type pg from 'pg';
import { dueIn } from '../../domain/notifications/timing.js';
import type { LogBody } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import { subscribedTypes } from '../webhooks/record.js';

export interface ZoneMove {
  tenant: string;
  userId: string;
  tz: string;
}

/**
 * Whether identifications that set a zone move what is pending: while any template exists, or an
 * active endpoint subscribes to an `emails.*` webhook.
 */
export function zoneMovesWanted(snapshot: Snapshot): boolean {
  return snapshot.templates.size > 0 || [...subscribedTypes(snapshot)].some((t) => t.startsWith('emails.'));
}

/** Whether an entry may set the user's zone, judged without parsing it. */
export function maySetZone(kind: string, fields: string[]): boolean {
  return (kind === 'user' || kind === 'event') && (fields[1] ?? '').includes('"tz":');
}

/** The zone an entry's identification sets, or null. */
export function zoneMoveOf(e: LogBody): ZoneMove | null {
  const tz = e.f?.tz;
  return typeof tz === 'string' && tz !== '' && e.t !== undefined && e.u !== undefined ? { tenant: e.t, userId: e.u, tz } : null;
}

export async function movePending(client: pg.ClientBase, prefix: string, snapshot: Snapshot, moves: ZoneMove[]): Promise<void> {
  const frequency = snapshot.streak?.frequency ?? null;
  const aggregation = snapshot.notifications?.recap.aggregation ?? 'weekly';
  // The last zone of each user in the pass.
  const last = new Map(moves.map((m) => [`${m.tenant}\u0000${m.userId}`, m]));
  for (const { tenant, userId, tz } of last.values()) {
    const { rows } = await client.query<{ id: string; type: string; occasion: string }>(
      `SELECT id, type, occasion FROM laurel_deliveries WHERE prefix = $1 AND tenant = $2 AND user_id = $3 AND status = 'scheduled'`,
      [prefix, tenant, userId],
    );
    for (const r of rows) {
      const at = dueIn(r.type, r.occasion, tz, frequency, aggregation);
      if (at === null) continue;
      await client.query(
        `UPDATE laurel_deliveries SET due_at = to_timestamp($3 / 1000.0), scheduled_for = to_timestamp($3 / 1000.0)
         WHERE prefix = $1 AND id = $2 AND status = 'scheduled' AND attempts = 0`,
        [prefix, r.id, at],
      );
    }
  }
}
