/**
 * CPU time per request of the three processes that share the machine during a measured pass: the
 * server under test, Redis and wrk, from Linux's /proc (user + system time, in clock ticks). Where
 * the time goes tells more than the requests/s alone: a variant that is slower because Redis works
 * more looks different from one whose api does.
 *
 * The server and Redis are read from /proc/<pid>/stat before and after the pass; wrk, a child of
 * this runner that has exited and been waited for by the end of the pass, from this process's
 * cutime + cstime (the children's time). Redis is read only when it runs on this machine (its
 * INFO process_id names a local redis-server). Elsewhere (no /proc) every figure is null.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU µs per request; null where it could not be read. */
export interface CpuPerRequest {
  server: number | null;
  redis: number | null;
  wrk: number | null;
}

let tickUs: number | null | undefined;

/** µs per clock tick (sysconf(_SC_CLK_TCK)); null without getconf. */
function microsPerTick(): number | null {
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
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // f[0] is field 3 (state): utime is field 14, so f[11].
    return [Number(f[11]), Number(f[12]), Number(f[13]), Number(f[14])];
  } catch {
    return null;
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

export interface CpuSample {
  server: number | null;
  redis: number | null;
  children: number | null;
}

/** Ticks used so far by the server, Redis (null: not local) and this process's reaped children. */
export function sample(serverPid: number | undefined, redisPid: number | null): CpuSample {
  const own = (pid: number | undefined | null) => {
    if (pid == null) return null;
    const t = times(pid);
    return t === null ? null : t[0] + t[1];
  };
  const self = times('self');
  return { server: own(serverPid), redis: own(redisPid), children: self === null ? null : self[2] + self[3] };
}

/** CPU µs per request between two samples, over `requests` requests. */
export function perRequest(before: CpuSample, after: CpuSample, requests: number): CpuPerRequest {
  const us = microsPerTick();
  const per = (a: number | null, b: number | null) =>
    a === null || b === null || us === null || requests <= 0 ? null : ((b - a) * us) / requests;
  return { server: per(before.server, after.server), redis: per(before.redis, after.redis), wrk: per(before.children, after.children) };
}
