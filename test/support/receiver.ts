/** An HTTP receiver on loopback for webhooks' tests: what it received, and the statuses it answers. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback: each path answers the statuses queued for it (200 once they run out). */
export async function startReceiver() {
  const received: Received[] = [];
  const answers = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.statusCode = answers.get(req.url ?? '')?.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => base + path,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    answer: (path: string, ...statuses: number[]) => answers.set(path, statuses),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
