/**
 * The log's consumer that makes phase 2 again for the events of an api process that died
 * (src/engine/durability/liveness.ts): those events are parsed and their phase 2 made again
 * (src/engine/durability/replay-phase2.ts: the streak rankings, points totals and placements);
 * absolute values, so an entry taken twice changes nothing. The rest is not parsed for it: phase 2
 * of each event keeps the rankings and totals (src/engine/streaks/rankings.ts).
 */
import { entryBody, type LogBody, type LoggedEvent } from '../../model/log.js';
import type { Deps } from '../deps.js';
import { deadProcesses, forgetProcesses, noteReplayed, processBeats, replayedBeats } from '../durability/liveness.js';
import { readLog, type StreamEntry } from '../durability/event-logs.js';
import { replayEvent } from '../durability/replay-phase2.js';
import type { Drained } from '../durability/streak-rankings-from-log.js';
import type { LogConsumer } from './consumer.js';

/** Entries read from one partition per round trip. */
const BATCH = 1000;

/** `"p":"<id>"` of each process, as an event's body names it. */
function processMarks(processes: Set<string>): string[] {
  return [...processes].map((p) => `"p":"${p}"`);
}

/** Whether the replay takes the entry: an event of one of the dead processes `marks` names. The rest are not parsed at all. */
function isConsumed(kind: string, fields: string[], marks: string[]): boolean {
  return marks.length > 0 && kind === 'event' && marks.some((m) => (fields[1] ?? '').includes(m));
}

function consumed(entries: StreamEntry[], marks: string[]): Drained[] {
  const out: Drained[] = [];
  for (const [id, fields] of entries) {
    const kind = fields[0] ?? 'unknown';
    if (isConsumed(kind, fields, marks)) out.push({ id, kind, e: JSON.parse(entryBody(fields)) as LogBody });
  }
  return out;
}

/**
 * Phase 2 of the events of a batch whose api process is dead already
 * (src/engine/durability/liveness.ts): a drainer behind by more than 15 s meets them here. A
 * process that stopped cleanly finished its requests first.
 */
async function replayPhase2(deps: Deps, batch: Drained[], dead: Set<string>): Promise<void> {
  if (dead.size === 0) return;
  for (const { id, kind, e } of batch) {
    if (kind === 'event' && e.p !== undefined && dead.has(e.p)) await replayEvent(deps, e as LoggedEvent, id);
  }
}

/**
 * Phase 2 of the events of api processes that died since the last drain: every entry of theirs
 * still in the logs (archived or not: the logs keep archived entries for LOG_RETAIN_MS,
 * src/engine/log-drain/drain.ts), placed again from the user's current state, which changes nothing where
 * their phase 2 did run. Usually the drainer has archived those entries long before their process
 * counts as dead (15 s of silence), so the passes alone would never meet them. A process is placed
 * again once per heartbeat it fell silent at (it may come back and die again). Forgets processes
 * silent for a day.
 */
async function replayDeadProcesses(deps: Deps, raw: Record<string, string>, nowMs: number): Promise<void> {
  const { dead, stale } = deadProcesses(raw, nowMs);
  if (stale.length > 0) await forgetProcesses(deps, stale);
  if (dead.size === 0) return;
  const replayed = await replayedBeats(deps);
  const due = new Set([...dead].filter((p) => replayed[p] !== raw[p]));
  if (due.size === 0) return;
  if (deps.store.current.leaderboards.size > 0) {
    const marks = processMarks(due);
    for (let partition = 0; partition < deps.keys.partitions; partition++) {
      let from = '-';
      for (;;) {
        const entries = await readLog(deps, partition, from, BATCH);
        if (entries.length === 0) break;
        await replayPhase2(deps, consumed(entries, marks), due);
        if (entries.length < BATCH) break;
        from = '(' + entries[entries.length - 1][0];
      }
    }
  }
  for (const p of due) await noteReplayed(deps, p, raw[p]);
}

export const replayLog: LogConsumer = {
  name: 'replay',
  start: ({ deps }) => ({
    async drain(nowMs) {
      // The processes' heartbeats as the drain begins: its passes replay the dead ones' events they meet.
      const processes = await processBeats(deps);
      const { dead } = deadProcesses(processes, nowMs);
      const marks = processMarks(dead);
      return {
        pass() {
          const taken: Drained[] = [];
          return {
            take({ id, kind, fields, body }) {
              if (isConsumed(kind, fields, marks)) taken.push({ id, kind, e: JSON.parse(body) as LogBody });
            },
            plan: () => replayPhase2(deps, taken, dead),
          };
        },
        end: () => replayDeadProcesses(deps, processes, nowMs),
      };
    },
  }),
};
