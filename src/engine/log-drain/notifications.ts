/**
 * The log's consumer that schedules the notifications:
 * - the achievement completions (entries that carry `ac`: the only ones parsed for it) are handed
 *   to the notifications' scheduler (src/engine/notifications/schedule.ts), whose deliveries are
 *   written in the archive's transaction: scheduled exactly once. A backfill's are silent.
 * - so are the streak reminders of the extensions (entries that carry `sx`), the reactivations and
 *   recaps of the users active in the pass (each event's user, day and streak read without parsing
 *   it), while a template of the type exists: noted in each partition's due index in Redis before
 *   the archive's transaction, nothing read, and only what this drainer has not written already
 *   (src/engine/notifications/due-index.ts), and made deliveries by the notifier when due.
 * - identifications that set a zone move the pending deliveries (src/engine/notifications/zones.ts),
 *   in the archive's transaction.
 * A history import's events (src/model/log.ts imported) call for none of it.
 */
import { activityOf, completionOf, imported, type LoggedCompletion } from '../../model/log.js';
import { plannedDeliveries, scheduleAll, type Planned } from '../notifications/schedule.js';
import { anyDue, dueWanted, noteDueTogether, noteEntry, NotedDays, type DueNotes, type PartitionDue } from '../notifications/due-index.js';
import { maySetZone, movePending, zoneMovesWanted, zoneMoveOf, type ZoneMove } from '../notifications/zones.js';
import { planned, type LogConsumer } from './consumer.js';

/** Users whose last noted day a drainer remembers (about 100 bytes each). */
const NOTED_USERS = 200_000;

export const notificationsLog: LogConsumer = {
  name: 'notifications',
  start: ({ deps }) => {
    /**
     * The day of each user's last event this drainer wrote in the due index: a user's later events
     * of the same day call for the same members, which are not written again. A pass adds its own
     * once its writes are done. Forgotten when the configuration changes (the members called for
     * may change with it).
     */
    const noted = new NotedDays(NOTED_USERS);
    let notedFor: unknown = null;
    return {
      async drain() {
        return {
          pass() {
            const snapshot = deps.store.current;
            // Events are noted in the due index (reminders, reactivations, recaps) only while a template of those types exists.
            const wanted = dueWanted(snapshot);
            const indexing = anyDue(wanted);
            if (notedFor !== snapshot) {
              noted.clear();
              notedFor = snapshot;
            }
            const notes: DueNotes = { written: noted, pass: new NotedDays() };
            const due = new Map<number, PartitionDue>();
            let members: PartitionDue = [];
            const zones = zoneMovesWanted(snapshot);
            const moves: ZoneMove[] = [];
            const completions: LoggedCompletion[] = [];
            let deliveries: Planned[] = [];
            return {
              partition(partition) {
                members = [];
                if (indexing) due.set(partition, members);
              },
              take(entry) {
                const { kind, fields, parsed } = entry;
                // A history import's events call for no notification.
                if (imported(kind, fields)) return;
                // The due index reads an event's user, day and streak without parsing it (an older entry's form is parsed).
                const active = indexing && kind === 'event';
                const seen = active ? entry.activity() ?? activityOf(parsed) : null;
                if (seen !== null) noteEntry(snapshot, wanted, seen, members, notes);
                const move = zones && maySetZone(kind, fields) ? zoneMoveOf(parsed) : null;
                if (move !== null) moves.push(move);
                if (entry.completes()) {
                  const completion = completionOf(parsed);
                  if (completion !== null) completions.push(completion);
                }
              },
              async plan() {
                deliveries = await planned(deps, 'notifications', completions.length, () => plannedDeliveries(deps, completions));
              },
              // An index written twice (a pass made again) changes nothing.
              write: () => noteDueTogether(deps, due),
              // Written: later passes need not write them again.
              written: () => notes.pass.addTo(noted),
              archive: () => (deliveries.length === 0 && moves.length === 0 ? undefined : {
                async write(client) {
                  if (moves.length > 0) await movePending(client, deps.settings.prefix, deps.store.current, moves);
                  if (deliveries.length > 0) await scheduleAll(client, deps.settings.prefix, deliveries, deps.clock.now());
                },
                failed: (err) => deps.log.error({ err, deliveries: deliveries.length }, 'notifications not scheduled for these entries'),
              }),
            };
          },
        };
      },
    };
  },
};
