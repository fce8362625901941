/**
 * What reading a request's headers costs, with the check of their size (`npm run
 * bench:header-check`): a uWebSockets.js server on loopback in this process, one route per way of
 * reading them, each answering a tiny JSON as laurel's writer does, driven by bench/micro-rounds.ts
 * with the headers the official SDK sends (through undici). Reported per request: this process's
 * CPU, the median over rounds, and the median over rounds of the difference from `none` (reading
 * nothing) in the same round. The ways: `visit`,
 * uWS's forEach with a callback that does nothing; `getters`, a getHeader for each of the five
 * headers laurel uses; `getters+visit`, those and a visit of their own that sums the size;
 * `readHeaders`, laurel's (src/http/server.ts): one visit that sums the size and picks the five.
 */
import { App, type HttpRequest } from 'uWebSockets.js';
import { listen, printRounds, runRounds } from './micro-rounds.js';
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
  return listen(app);
}

async function main(): Promise<void> {
  const port = await serve();
  console.log(`header check: ${Object.keys(HEADERS).length + 1} headers a request`);
  const r = await runRounds(port, Object.keys(CHECKS), Object.entries(HEADERS).flat());
  console.log(`${r.rounds} rounds of ${r.durationS} s a route`);
  printRounds(r, 'none', false);
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
