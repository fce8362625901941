/**
 * Read-your-writes across api processes. Every api process follows the configuration and the
 * manual clock by pub/sub (src/config/store.ts), so a change made through one reaches the others
 * within milliseconds, but not before it answers: a client that creates a metric and sends its
 * first event on another connection may reach a process that has not reloaded yet (several api
 * processes share a port, src/app/processes.ts), and one that moves the clock may read the old
 * time there. So each api process records what it has applied (its follower entries: the
 * configuration version it has loaded, the clock setting it runs on), and a write, before it
 * answers, waits until every live api process has recorded the new one, at most FOLLOW_WAIT_MS (the
 * version poll's period, by which a process that missed the message has caught up anyway; a slower
 * one is logged and not waited for).
 *
 * Live: its heartbeat (src/engine/durability/liveness.ts) is recent. A process that records
 * nothing (one of an earlier laurel, during an upgrade) is not waited for.
 */
import type { Logger } from 'pino';
import type { RedisClient } from '../redis/client.js';
import type { Keys } from '../redis/keys.js';

/** Longest a configuration write waits for the other api processes. */
export const FOLLOW_WAIT_MS = 2000;

/** How often a waiting write reads the followers' versions. */
const FOLLOW_POLL_MS = 5;

/**
 * The api processes whose heartbeat is recent (`aliveMs`) and whose recorded number (a
 * configuration version, a clock setting's sequence) is below `version`: those a write of
 * `version` waits for.
 */
export function followersBehind(
  beats: Record<string, string>, versions: Record<string, string>, version: number, nowMs: number, aliveMs: number,
): string[] {
  const behind: string[] = [];
  for (const [id, loaded] of Object.entries(versions)) {
    if (Number(loaded) >= version) continue;
    const beat = beats[id];
    if (beat === undefined || beat.startsWith('stopped:') || nowMs - Number(beat) > aliveMs) continue;
    behind.push(id);
  }
  return behind;
}

/** What api processes record having applied: the configuration's version, the manual clock's setting. */
export type Applied = 'configuration change' | 'clock setting';

/** The hash of what api processes record of `what`: process id -> the number applied. */
function followersOf(keys: Keys, what: Applied): string {
  return what === 'clock setting' ? keys.apiClockSettings : keys.apiConfigVersions;
}

/** Records that api process `id` has applied `version` of `what`. */
export async function recordApplied(redis: RedisClient, keys: Keys, what: Applied, id: string, version: number): Promise<void> {
  await redis.hset(followersOf(keys, what), id, String(version));
}

/**
 * Waits until no live api process is behind `version` of `what`, or FOLLOW_WAIT_MS have passed
 * (logged). `heartbeatMs`: how often api processes beat; one silent for three beats is not waited
 * for.
 */
export async function awaitFollowers(
  redis: RedisClient, keys: Keys, log: Logger, what: Applied, version: number, heartbeatMs: number,
): Promise<void> {
  const deadline = Date.now() + FOLLOW_WAIT_MS;
  const aliveMs = 3 * heartbeatMs + 1000;
  for (;;) {
    const results = (await redis.pipeline().hgetall(keys.apiProcesses).hgetall(followersOf(keys, what)).exec()) ?? [];
    for (const [err] of results) if (err) throw err;
    const behind = followersBehind(
      results[0][1] as Record<string, string>, results[1][1] as Record<string, string>, version, Date.now(), aliveMs,
    );
    if (behind.length === 0) return;
    if (Date.now() >= deadline) {
      log.warn({ version, behind, waitedMs: FOLLOW_WAIT_MS }, `api processes have not loaded the ${what} yet; answering anyway`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
}
