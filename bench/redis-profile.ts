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

/** The commands run between two readings, each per request, the costliest first (at most `n`). */
export function commandsPerRequest(before: CommandStats, after: CommandStats, requests: number, n = 12): CommandShare[] {
  if (requests <= 0) return [];
  return [...after]
    .map(([command, a]) => ({ command, calls: a.calls - (before.get(command)?.calls ?? 0), usec: a.usec - (before.get(command)?.usec ?? 0) }))
    // INFO is the runner's own reading.
    .filter((c) => c.calls > 0 && c.command !== 'info')
    .sort((x, y) => y.usec - x.usec || x.command.localeCompare(y.command))
    .slice(0, n)
    .map((c) => ({ command: c.command, calls: c.calls / requests, us: c.usec / requests }));
}

/**
 * The rounds' profiles as one: each command's calls and µs, the median over the rounds that were
 * profiled (a command missing from a round counts 0 there), the costliest first (at most `n`);
 * null when no round was.
 */
export function medianProfile(rounds: (CommandShare[] | null | undefined)[], n = 8): CommandShare[] | null {
  const profiled = rounds.filter((r): r is CommandShare[] => Array.isArray(r));
  if (profiled.length === 0) return null;
  const names = [...new Set(profiled.flatMap((r) => r.map((c) => c.command)))];
  const mid = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const h = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? s[h] : (s[h - 1] + s[h]) / 2;
  };
  return names
    .map((command) => {
      const of = (r: CommandShare[]) => r.find((c) => c.command === command);
      return { command, calls: mid(profiled.map((r) => of(r)?.calls ?? 0)), us: mid(profiled.map((r) => of(r)?.us ?? 0)) };
    })
    .sort((x, y) => y.us - x.us || x.command.localeCompare(y.command))
    .slice(0, n);
}

/** A profile in one cell: `fcall 61.2 µs × 1.00, hset 3.1 µs × 5.30, …`. */
export function profileCell(profile: CommandShare[], n = 6): string {
  return profile.slice(0, n).map((c) => `${c.command} ${c.us.toFixed(1)} µs × ${c.calls.toFixed(2)}`).join(', ');
}
