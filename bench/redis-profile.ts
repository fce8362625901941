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
