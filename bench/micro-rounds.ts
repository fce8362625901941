/**
 * The micro benches' rounds (`bench:header-check`, `bench:pipelining`): a uWebSockets.js server on
 * loopback in this process, one route per way of doing a thing, and wrk sending one GET
 * (bench/wrk/headers.lua, with the headers given) to one route a pass, the routes in turns over
 * several rounds, so that no route always follows the same one and the load of a shared machine
 * moves every route of a round alike. Per route and round: this process's CPU per request (it does
 * nothing else meanwhile) and wrk's median latency. BENCH_DURATION seconds a pass (5),
 * BENCH_ROUNDS rounds (5).
 */
import { us_socket_local_port, type TemplatedApp } from 'uWebSockets.js';
import { runWrk, WRK_MISSING, wrkVersion } from './wrk.js';
import { ROOT } from './variants.js';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Listens on a free loopback port; answers it. */
export function listen(app: TemplatedApp): Promise<number> {
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('cannot listen')) : resolve(us_socket_local_port(socket))));
  });
}

export interface Rounds {
  /** How many rounds, and how long a pass (s). */
  rounds: number;
  durationS: number;
  /** Per route, a value a round: CPU µs per request; wrk's median latency, µs. */
  cpuUs: Map<string, number[]>;
  p50Us: Map<string, number[]>;
}

/** Runs the rounds over the routes `names` of the server on `port`, each request with `headers`. */
export async function runRounds(port: number, names: string[], headers: string[]): Promise<Rounds> {
  if (wrkVersion() === null) throw new Error(WRK_MISSING);
  const durationS = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const cpuUs = new Map<string, number[]>(names.map((n) => [n, []]));
  const p50Us = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const before = process.cpuUsage();
      const r = await runWrk({
        url: `http://127.0.0.1:${port}/${name}`, script: `${ROOT}bench/wrk/headers.lua`, scriptArgs: headers,
        threads: 1, connections: 8, durationS, timeoutS: 5,
      }, AbortSignal.timeout((durationS + 30) * 1000));
      const used = process.cpuUsage(before);
      if (r.statuses['200'] !== r.requests) throw new Error(`${name}: ${JSON.stringify(r.statuses)}`);
      cpuUs.get(name)!.push((used.user + used.system) / r.requests);
      p50Us.get(name)!.push(r.latencyUs.p50);
    }
  }
  return { rounds, durationS, cpuUs, p50Us };
}

/** Prints the table: per route the median CPU, each round's, and the median of the rounds' differences from `base`. */
export function printRounds(r: Rounds, base: string, withLatency: boolean): void {
  const first = r.cpuUs.get(base)!;
  const names = [...r.cpuUs.keys()];
  console.log(`| way | server CPU µs/request (median) | per round | over ${base} (median of the rounds' differences) |${withLatency ? ' wrk p50 µs (median) |' : ''}`);
  console.log(`|---|---:|---:|---:|${withLatency ? '---:|' : ''}`);
  for (const name of names) {
    const xs = r.cpuUs.get(name)!;
    const over = name === base ? '—' : median(xs.map((x, i) => x - first[i])).toFixed(2);
    const p50 = withLatency ? ` ${median(r.p50Us.get(name)!).toFixed(0)} |` : '';
    console.log(`| ${name} | ${median(xs).toFixed(2)} | ${xs.map((x) => x.toFixed(2)).join(' / ')} | ${over} |${p50}`);
  }
}
