/**
 * What reading a request's headers costs, with the check of their size (`npm run
 * bench:header-check`): a uWebSockets.js server on loopback in this process, one route per way of
 * reading them, each answering a tiny JSON as laurel's writer does; wrk sends the same GET with
 * the headers the official SDK sends (through undici) to one route a pass, the routes in turns
 * over several rounds. Reported per request: this process's CPU (it does nothing else meanwhile),
 * the median over rounds, and the median over rounds of the difference from `none` (reading
 * nothing) in the same round. The ways: `visit`,
 * uWS's forEach with a callback that does nothing; `getters`, a getHeader for each of the five
 * headers laurel uses; `getters+visit`, those and a visit of their own that sums the size;
 * `readHeaders`, laurel's (src/http/server.ts): one visit that sums the size and picks the five.
 * BENCH_DURATION seconds a pass (5), BENCH_ROUNDS rounds (5).
 */
import { App, us_socket_local_port, type HttpRequest } from 'uWebSockets.js';
import { runWrk, WRK_MISSING, wrkVersion } from './wrk.js';
import { ROOT } from './variants.js';
import { HEADERS_LIMIT, readHeaders } from '../src/http/server.js';

/** What the SDK's requests carry (Host and Content-Length aside), as undici sends them. */
const HEADERS: Record<string, string> = {
  'X-API-KEY': `lk_${'a'.repeat(43)}`,
  'Content-Type': 'application/json',
  Accept: '*/*',
  'X-Fern-Language': 'JavaScript',
  'X-Fern-SDK-Name': '@trophyso/node',
  'X-Fern-SDK-Version': '1.0.42',
  'X-Fern-Runtime': 'node',
  'X-Fern-Runtime-Version': 'v20.19.0',
  'User-Agent': 'node',
  'Accept-Language': '*',
  'Sec-Fetch-Mode': 'cors',
  'Accept-Encoding': 'gzip, deflate',
};

/** The five headers src/http/server.ts uses, a getHeader each. */
function getters(uReq: HttpRequest): string[] {
  return [uReq.getHeader('x-api-key'), uReq.getHeader('tenant-id'), uReq.getHeader('idempotency-key'),
    uReq.getHeader('content-type'), uReq.getHeader('content-length')];
}

/** The size of the headers (and the target) summed in a visit of its own. */
function sized(uReq: HttpRequest, url: string, query: string): number {
  let total = url.length + query.length;
  uReq.forEach((name, value) => { total += name.length + value.length + 4; });
  return total;
}

/** uWS's visit alone: every header made a string pair and handed over, nothing summed. */
const nothing = (): void => {};

/** Each way: whether the request is refused (never, with these headers: a check that answers 431 would fail the pass). */
const CHECKS: Record<string, (uReq: HttpRequest, url: string, query: string) => boolean> = {
  none: () => false,
  visit: (uReq) => { uReq.forEach(nothing); return false; },
  getters: (uReq) => getters(uReq)[0] === '',
  'getters+visit': (uReq, url, query) => getters(uReq)[0] === '' || sized(uReq, url, query) > HEADERS_LIMIT,
  readHeaders: (uReq, url, query) => {
    const h = readHeaders(uReq, url, query);
    return h.apiKey === '' || h.size > HEADERS_LIMIT;
  },
};

const OK = '{"ok":true}';

function serve(): Promise<number> {
  const app = App();
  for (const [name, check] of Object.entries(CHECKS)) {
    app.get(`/${name}`, (res, req) => {
      const url = req.getUrl();
      const query = req.getQuery() ?? '';
      const tooLarge = check(req, url, query);
      res.cork(() => {
        res.writeStatus(tooLarge ? '431 Request Header Fields Too Large' : '200 OK').writeHeader('content-type', 'application/json').end(OK);
      });
    });
  }
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('cannot listen')) : resolve(us_socket_local_port(socket))));
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  if (wrkVersion() === null) throw new Error(WRK_MISSING);
  const durationS = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const port = await serve();
  const names = Object.keys(CHECKS);
  const perRequest = new Map<string, number[]>(names.map((n) => [n, []]));
  console.log(`header check: ${Object.keys(HEADERS).length + 1} headers a request, ${rounds} rounds of ${durationS} s a route`);
  for (let round = 0; round < rounds; round++) {
    // Rotated, so that no route always follows the same one.
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const before = process.cpuUsage();
      const r = await runWrk({
        url: `http://127.0.0.1:${port}/${name}`, script: `${ROOT}bench/wrk/headers.lua`, scriptArgs: Object.entries(HEADERS).flat(),
        threads: 1, connections: 8, durationS, timeoutS: 5,
      }, AbortSignal.timeout((durationS + 30) * 1000));
      const cpu = process.cpuUsage(before);
      if (r.statuses['200'] !== r.requests) throw new Error(`${name}: ${JSON.stringify(r.statuses)}`);
      perRequest.get(name)!.push((cpu.user + cpu.system) / r.requests);
    }
  }
  // The difference from `none` in the same round, then the median over rounds: the load of a shared
  // machine moves every route of a round alike.
  const none = perRequest.get('none')!;
  console.log('| way | server CPU µs/request (median) | per round | over none (median of the rounds\' differences) |');
  console.log('|---|---:|---:|---:|');
  for (const name of names) {
    const xs = perRequest.get(name)!;
    const over = name === 'none' ? '—' : median(xs.map((x, i) => x - none[i])).toFixed(2);
    console.log(`| ${name} | ${median(xs).toFixed(2)} | ${xs.map((x) => x.toFixed(2)).join(' / ')} | ${over} |`);
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
