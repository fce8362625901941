/**
 * An api process says it is alive: every `heartbeatMs` it writes the wall time into the api
 * processes hash, and `stopped:<ms>` once it has finished its requests and stops. Events carry
 * their process's id in the event log, so the log drainer can tell which events may have lost
 * their phase 2 (the leaderboards): those of a process that stopped without saying so.
 */
import type { RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';
import type { Context } from '../context.js';

/** A process silent this long (wall time) is taken for dead. */
const DEAD_AFTER_MS = 15_000;

export class Liveness {
  readonly id: string;
  private timer: NodeJS.Timeout | null = null;
  private readonly redis: RedisClient;
  private readonly keys: Keys;

  constructor(redis: RedisClient, keys: Keys, id: string) {
    this.redis = redis;
    this.keys = keys;
    this.id = id;
  }

  async start(everyMs: number): Promise<void> {
    const beat = () => this.redis.hset(this.keys.apiProcesses, this.id, String(Date.now()));
    await beat();
    this.timer = setInterval(() => { beat().catch(() => undefined); }, everyMs);
    this.timer.unref();
  }

  /** After the last request: nothing of this process waits for a phase 2 any more. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.redis.hset(this.keys.apiProcesses, this.id, `stopped:${Date.now()}`).catch(() => undefined);
  }
}

/** Which processes of the hash are dead now (silent too long); also the entries old enough to forget. */
export function deadProcesses(raw: Record<string, string>, nowMs: number): { dead: Set<string>; stale: string[] } {
  const dead = new Set<string>();
  const stale: string[] = [];
  for (const [id, value] of Object.entries(raw)) {
    const stopped = value.startsWith('stopped:');
    const at = Number(stopped ? value.slice(8) : value);
    if (!stopped && nowMs - at > DEAD_AFTER_MS) dead.add(id);
    if (nowMs - at > 86_400_000) stale.push(id);
  }
  return { dead, stale };
}

/** The api processes hash: each process's last heartbeat (or `stopped:<ms>`). */
export function processBeats(deps: Pick<Context, 'redis' | 'keys'>): Promise<Record<string, string>> {
  return deps.redis.hgetall(deps.keys.apiProcesses);
}

/** Forgets processes (deadProcesses' `stale`): their heartbeat, what was replayed of them, what they applied. */
export async function forgetProcesses(deps: Pick<Context, 'redis' | 'keys'>, stale: string[]): Promise<void> {
  const { redis, keys } = deps;
  await redis.hdel(keys.apiProcesses, ...stale);
  await redis.hdel(keys.apiReplayed, ...stale);
  await redis.hdel(keys.apiConfigVersions, ...stale);
  await redis.hdel(keys.apiClockSettings, ...stale);
}

/** The heartbeat each dead process's events were placed again at (the drainer's replays). */
export function replayedBeats(deps: Pick<Context, 'redis' | 'keys'>): Promise<Record<string, string>> {
  return deps.redis.hgetall(deps.keys.apiReplayed);
}

/** Notes that a dead process's events were placed again at heartbeat `beat`. */
export async function noteReplayed(deps: Pick<Context, 'redis' | 'keys'>, process: string, beat: string): Promise<void> {
  await deps.redis.hset(deps.keys.apiReplayed, process, beat);
}
