/**
 * The log's consumer that queues the webhooks: while an active webhook endpoint subscribes to a
 * type the log gives, the entries that may call for one (src/domain/webhooks/events.ts mayNotify)
 * are parsed, and their webhook deliveries (src/engine/webhooks/plan.ts) put in the endpoints'
 * queues in Redis before the archive's transaction (src/engine/webhooks/queue.ts): each entry's
 * once, however often a pass is made again, since the queues mark the entries they took. A drain
 * that read every log to its end then says where the service's clock stood as it began: the
 * `points.changed` windows that ended before it are complete (src/engine/webhooks/points-changed.ts).
 * A history import's events (src/model/log.ts imported) call for none.
 */
import { mayNotify, type ParsedEntry } from '../../domain/webhooks/events.js';
import { imported } from '../../model/log.js';
import { anyDue, dueWanted } from '../notifications/due-index.js';
import { maySetZone, zoneMovesWanted } from '../notifications/zones.js';
import { logSubscribers, plannedWebhooks } from '../webhooks/plan.js';
import { noteDrained } from '../webhooks/points-changed.js';
import { rankNotesWanted } from '../webhooks/rank-notes.js';
import { enqueue, type QueuedDelivery } from '../webhooks/queue.js';
import { planned, type LogConsumer } from './consumer.js';

export const webhooksLog: LogConsumer = {
  name: 'webhooks',
  start: ({ deps, queued }) => ({
    async drain() {
      // Before anything is read: a drain that reads every log to its end has seen every event before it.
      const clockAtStart = deps.clock.now();
      return {
        pass() {
          const snapshot = deps.store.current;
          // Entries are parsed for webhooks only while an active endpoint subscribes to a type the log gives.
          const subscribers = logSubscribers(snapshot);
          const hooks = subscribers.endpoints.length > 0;
          // Every event is parsed for them while an uncapped board's rank changes are wanted (src/engine/webhooks/rank-notes.ts).
          const everyEvent = hooks && rankNotesWanted(snapshot, subscribers.types);
          // The entries the notifications look at too: an event of an older form while the due
          // index is kept, an identification setting a zone while zone moves are wanted.
          const indexing = hooks && anyDue(dueWanted(snapshot));
          const zones = hooks && zoneMovesWanted(snapshot);
          const notifying: ParsedEntry[] = [];
          let webhooks: QueuedDelivery[] = [];
          return {
            take(entry) {
              if (!hooks) return;
              const { id, kind, fields, parsed } = entry;
              // A history import's events call for no webhook.
              if (imported(kind, fields)) return;
              const olderEvent = indexing && kind === 'event' && entry.activity() === null;
              if (entry.completes() || olderEvent || (zones && maySetZone(kind, fields)) || mayNotify(kind, fields) || (everyEvent && kind === 'event')) {
                notifying.push({ id, kind, e: parsed });
              }
            },
            async plan() {
              webhooks = await planned(deps, 'webhooks', notifying.length, () => plannedWebhooks(deps, notifying, deps.clock.now()));
            },
            // Due now: in the endpoints' queues before the archive holds their entries (a queue
            // takes an entry's once: a pass made again adds nothing).
            async write() {
              if (webhooks.length === 0) return;
              await enqueue(deps, webhooks);
              queued?.();
            },
          };
        },
        // The points.changed windows that ended before it are complete (src/engine/webhooks/points-changed.ts).
        async end(whole) {
          if (whole) await noteDrained(deps, clockAtStart);
        },
      };
    },
  }),
};
