/**
 * CPU time per request of the processes that share the machine during a measured pass: the
 * server under test (laurel's api, with the workers when they run in the same process), laurel's
 * workers when they run in a process of their own, Redis, Postgres and the load generator, from
 * Linux's /proc (user + system time, in clock ticks). Where the time goes tells more than the
 * requests/s alone: a variant that is slower because Redis works more looks different from one
 * whose api does, and the event log drain's share (workers and Postgres) shows apart.
 *
 * The server (laurel's api processes, when it runs several: the primary's children), the workers and
 * Redis are read from /proc/<pid>/stat before and after the pass; the
 * load generator (wrk, or bench/open-loop-client.ts), a child of this runner that has exited and
 * been waited for by the end of the pass, from this process's cutime + cstime (the children's
 * time). Redis is read only when it runs on this machine (its INFO process_id names a local
 * redis-server). Postgres is every process whose name is `postgres` (the postmaster, its
 * background processes and every backend: the local server is shared, so this counts other
 * clients' work too; the api-only variants' figure shows that background), with the postmaster's
 * reaped children (backends that exited during the pass) through its cutime + cstime. Elsewhere
 * (no /proc) every figure is null.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU µs per request; null where it could not be read or does not apply. */
export interface CpuPerRequest {
  /** The server's process: laurel's api (and its workers under `laurel start`), or a bench server. */
  server: number | null;
  /** laurel's workers in a process of their own (`laurel workers`); null when there is none. */
  workers: number | null;
  redis: number | null;
  /** Every local Postgres process (bench/cpu.ts postgresTicks); null when none runs here. */
  postgres: number | null;
  /** The load generator (wrk; the open-loop client in an open-loop pass). */
  wrk: number | null;
}

let tickUs: number | null | undefined;

/** µs per clock tick (sysconf(_SC_CLK_TCK)); null without getconf. */
export function microsPerTick(): number | null {
  if (tickUs === undefined) {
    try {
      tickUs = 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      tickUs = null;
    }
  }
  return tickUs;
}

/** Fields 14-17 of /proc/<pid>/stat (utime, stime, cutime, cstime), after the command's name. */
function times(pid: number | 'self'): [number, number, number, number] | null {
  try {
    return statTimes(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** utime, stime, cutime and cstime from the text of a /proc/<pid>/stat. */
export function statTimes(stat: string): [number, number, number, number] {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state): utime is field 14, so f[11].
  return [Number(f[11]), Number(f[12]), Number(f[13]), Number(f[14])];
}

/** The processes `pid` started and that still run (Linux's /proc/<pid>/task/<pid>/children); [] elsewhere. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` is a redis-server on this machine. */
export function isLocalRedis(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('redis-server');
  } catch {
    return false;
  }
}

/**
 * Ticks of every local Postgres process: utime + stime of each, plus cutime + cstime (the
 * postmaster's reaped children: backends and autovacuum workers that exited). Null when no process
 * named `postgres` runs here. A backend that exits between two samples is counted through the
 * postmaster once it was reaped (at once, in practice).
 */
export function postgresTicks(): number | null {
  let total = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    try {
      if (!readFileSync(`/proc/${name}/comm`, 'utf8').startsWith('postgres')) continue;
      const t = statTimes(readFileSync(`/proc/${name}/stat`, 'utf8'));
      total += t[0] + t[1] + t[2] + t[3];
      found = true;
    } catch {
      // The process exited between the listing and the read: the postmaster counts it.
    }
  }
  return found ? total : null;
}

export interface CpuSample {
  server: number | null;
  workers: number | null;
  redis: number | null;
  postgres: number | null;
  children: number | null;
}

export const ZERO_SAMPLE: CpuSample = { server: 0, workers: 0, redis: 0, postgres: 0, children: 0 };

/**
 * The processes a pass reads: the server (several: laurel's api processes, summed), the workers' own
 * process (if any) and Redis (null: not local).
 */
export interface Pids {
  server: number | number[] | undefined;
  workers?: number | undefined | null;
  redis: number | null;
}

/** Ticks used so far by each process, Postgres and this process's reaped children. */
export function sample(pids: Pids, withPostgres = true): CpuSample {
  const one = (pid: number) => {
    const t = times(pid);
    return t === null ? null : t[0] + t[1];
  };
  const own = (pid: number | number[] | undefined | null) => {
    if (pid == null) return null;
    if (!Array.isArray(pid)) return one(pid);
    let sum = 0;
    for (const p of pid) {
      const t = one(p);
      if (t === null) return null;
      sum += t;
    }
    return pid.length === 0 ? null : sum;
  };
  const self = times('self');
  return {
    server: own(pids.server),
    workers: own(pids.workers),
    redis: own(pids.redis),
    postgres: withPostgres ? postgresTicks() : null,
    children: self === null ? null : self[2] + self[3],
  };
}

/** `sum` + (`after` − `before`) for each figure; null where any of them is null. */
export function addTicks(sum: CpuSample, before: CpuSample, after: CpuSample): CpuSample {
  const add = (a: number | null, b: number | null, c: number | null) => (a === null || b === null || c === null ? null : a + c - b);
  return {
    server: add(sum.server, before.server, after.server),
    workers: add(sum.workers, before.workers, after.workers),
    redis: add(sum.redis, before.redis, after.redis),
    postgres: add(sum.postgres, before.postgres, after.postgres),
    children: add(sum.children, before.children, after.children),
  };
}

/** CPU µs per request between two samples, over `requests` requests (`us`: µs per tick). */
export function perRequest(before: CpuSample, after: CpuSample, requests: number, us: number | null = microsPerTick()): CpuPerRequest {
  const per = (a: number | null, b: number | null) =>
    a === null || b === null || us === null || requests <= 0 ? null : ((b - a) * us) / requests;
  return {
    server: per(before.server, after.server),
    workers: per(before.workers, after.workers),
    redis: per(before.redis, after.redis),
    postgres: per(before.postgres, after.postgres),
    wrk: per(before.children, after.children),
  };
}

/** CPU ticks (user and system) of a process so far; 0 when it is gone. */
export function ticks(pid: number | null | undefined): number {
  if (pid == null) return 0;
  try {
    const t = statTimes(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return t[0] + t[1];
  } catch {
    return 0;
  }
}
