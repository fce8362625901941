import type { Redis } from 'ioredis';

/**
 * A variant's Redis time by command: what each command cost a request over the measured load, from
 * two readings of `INFO commandstats` on the variant's Redis (bench/redis.ts commandStats). Redis 7
 * counts the commands a script runs under their own names as well as under the script's call
 * (`fcall`, `evalsha`): a script's µs include those of the commands it runs, so the rows do not add
 * up to the variant's Redis CPU (bench/cpu.ts, which also holds what no command accounts for: the
 * event loop, reading and writing the sockets).
 */

/** Each command's calls and µs so far (`INFO commandstats`), by name. */
export type CommandStats = Map<string, { calls: number; usec: number }>;

/** A command's cost to a request: calls and µs per request. */
export interface CommandShare {
  command: string;
  calls: number;
  us: number;
}

/** The `n` commands that took Redis the most time between two readings, with their calls and µs. */
export function busiest(before: CommandStats, after: CommandStats, n: number): { command: string; calls: number; usec: number }[] {
  return [...after].map(([command, a]) => ({ command, calls: a.calls - (before.get(command)?.calls ?? 0), usec: a.usec - (before.get(command)?.usec ?? 0) }))
    .filter((c) => c.calls > 0).sort((x, y) => y.usec - x.usec).slice(0, n);
}

/** The commands run between two readings, each per request, the costliest first (at most `n`; INFO, the runner's own reading, left out). */
export function commandsPerRequest(before: CommandStats, after: CommandStats, requests: number, n = 12): CommandShare[] {
  if (requests <= 0) return [];
  return busiest(before, after, n + 1).filter((c) => c.command !== 'info').slice(0, n)
    .map((c) => ({ command: c.command, calls: c.calls / requests, us: c.usec / requests }));
}

/**
 * A variant's Redis time by script: every script call of a stretch of load read from Redis's
 * `SLOWLOG` (every command logged, with its duration, while the stretch runs: slowlogEverything),
 * its calls and µs a request by script (the function an `FCALL` names, or an `EVALSHA`'s digest).
 * The log costs Redis a little for each command; the runner logs the warm-up, which is not measured.
 */
export interface SlowlogState {
  slower: string;
  maxLen: string;
}

/** What SLOWLOG GET answers for one command: id, time, µs, arguments, client address, client name. */
export type SlowlogEntry = [number, number, number, string[], ...unknown[]];

/** The entries that can be logged at once: more than a warm-up's commands. */
const SLOWLOG_LEN = 1_000_000;

/** Logs every command from now on (its settings before, to put back). */
export async function slowlogEverything(redis: Redis): Promise<SlowlogState> {
  const [, slower] = (await redis.config('GET', 'slowlog-log-slower-than')) as string[];
  const [, maxLen] = (await redis.config('GET', 'slowlog-max-len')) as string[];
  await redis.config('SET', 'slowlog-max-len', String(SLOWLOG_LEN));
  await redis.slowlog('RESET');
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  return { slower, maxLen };
}

/** The entries logged since slowlogEverything, and the settings put back. */
export async function slowlogRead(redis: Redis, state: SlowlogState): Promise<SlowlogEntry[]> {
  await redis.config('SET', 'slowlog-log-slower-than', state.slower);
  const entries = (await redis.slowlog('GET', SLOWLOG_LEN)) as SlowlogEntry[];
  await redis.slowlog('RESET');
  await redis.config('SET', 'slowlog-max-len', state.maxLen);
  return entries;
}

/** The scripts called in `entries`, each per request (calls and µs), the costliest first (at most `n`). */
export function scriptsPerRequest(entries: SlowlogEntry[], requests: number, n = 12): CommandShare[] {
  if (requests <= 0) return [];
  const scripts = new Map<string, { calls: number; usec: number }>();
  for (const [, , usec, args] of entries) {
    const command = String(args[0] ?? '').toLowerCase();
    if (command !== 'fcall' && command !== 'fcall_ro' && command !== 'evalsha' && command !== 'evalsha_ro') continue;
    const name = String(args[1] ?? '');
    const s = scripts.get(name) ?? { calls: 0, usec: 0 };
    s.calls++;
    s.usec += usec;
    scripts.set(name, s);
  }
  return [...scripts].sort((a, b) => b[1].usec - a[1].usec || a[0].localeCompare(b[0])).slice(0, n)
    .map(([command, s]) => ({ command, calls: s.calls / requests, us: s.usec / requests }));
}
