/**
 * A run of events of one user on one metric (a batch's items, in order: src/engine/batches/process.ts)
 * applied as they would be one by one, with one phase 1 call for the run (lua/recordEventRun-4.lua)
 * where each would have made its own: each event's phase 1 is its own function's body with its own
 * arguments, so it writes and answers what its own call would have. Then, in order, each event's
 * phase 2 and answer as the recorder makes them for one event alone.
 *
 * What the recorder keeps between a user's events is carried through the run as it would be from
 * one event to the next: the zone an event sets is the one the events after it assume, and the
 * user's clock as an event leaves it the one the next assumes. Anything else the script hands
 * back (a zone or clock other than the one assumed, the plan, the user's streak
 * preferences, time awards or anniversaries due, a refusal) writes nothing and ends the run at that
 * event: the recorder does what it asks and goes on with that event alone, as it would have; the
 * events after it make a run again. A replay (its key used before) writes nothing either, and the
 * run goes on past it.
 *
 * Phase 2 follows the whole run's phase 1 rather than each event's own: the placements are each
 * event's (its values, ordered by its log entry's id), made in the events' order; phase 1 reads
 * nothing phase 2 writes.
 */
import * as recordEventScript from '../../redis/scripts/recordEvent.js';
import * as recordEventPlanScript from '../../redis/scripts/recordEventPlan.js';
import * as recordEventRunScript from '../../redis/scripts/recordEventRun.js';
import type { RedisClient } from '../../redis/client.js';
import { advance } from '../../domain/clock.js';
import type { EventInput, EventOutcome, EventRecorder, PendingEvent } from './record.js';

/**
 * Events of a run sent in one call at most: a call holds Redis while it runs (each event some tens
 * of microseconds), and its arguments are held in memory until it answers.
 */
const RUN_EVENTS = 50;

/** What became of an event of a run: its outcome, or what it threw (a refusal, or a fault). */
export type RunResult = { outcome: EventOutcome } | { error: unknown };

function settled(p: Promise<EventOutcome>): Promise<RunResult> {
  return p.then((outcome) => ({ outcome }), (error: unknown) => ({ error }));
}

/** Phase 1 of the events prepared, in one call; `e[0]` names the keys of all. */
function sendRun(redis: RedisClient, events: PendingEvent[]): Promise<recordEventRunScript.RunAnswer> {
  const { u, userMetricKey } = events[0];
  if (events[0].plain !== null) {
    return recordEventRunScript.run(redis, [u.user, userMetricKey, u.users, u.log], 'e', events.map((e) => recordEventScript.argsOf(e.plain!)));
  }
  return recordEventRunScript.run(redis, [u.user, userMetricKey, u.slot, u.log], 'p', events.map((e) => recordEventPlanScript.argsOf(e.planned!)));
}

/** Each event's result, in the inputs' order (the events of one user, tenant and metric). */
export async function recordRun(recorder: EventRecorder, redis: RedisClient, inputs: readonly EventInput[]): Promise<RunResult[]> {
  const results: RunResult[] = [];
  let from = 0;
  while (from < inputs.length) {
    if (from === inputs.length - 1) {
      results.push(await settled(recorder.record(inputs[from])));
      break;
    }
    const { tenant, userId } = inputs[from];
    let tz = recorder.knownZone(tenant, userId);
    let clock = recorder.knownClock(tenant, userId);
    const events: PendingEvent[] = [];
    for (let k = from; k < inputs.length && events.length < RUN_EVENTS; k++) {
      const e = recorder.begin(inputs[k], tz, clock);
      recorder.prepare(e);
      // The events of a run take one script: the user's plan of the metric is the same for all.
      if (events.length > 0 && (e.plain === null) !== (events[0].plain === null)) break;
      events.push(e);
      tz = e.tz;
      clock = advance(clock, e.time, e.now);
    }
    recorder.coalescer.hold();
    const sent = sendRun(redis, events);
    // As for an event alone (EventRecorder.send): on one Redis, the gates read behind phase 1.
    if (!redis.isCluster) for (const e of events) recorder.phase2.readGates(e.boards);
    const { answers, failed } = await sent;
    for (let k = 0; k < answers.length; k++) {
      const answer = answers[k];
      const e = events[k];
      results.push(await settled(typeof answer === 'string' ? recorder.settle(e, answer) : recorder.attempts(e, answer)));
    }
    from += answers.length;
    // An event whose body failed on Redis: sent alone, as it would have been (failing as it would have).
    if (failed) results.push(await settled(recorder.attempts(events[answers.length], null)));
    if (failed) from++;
  }
  return results;
}
