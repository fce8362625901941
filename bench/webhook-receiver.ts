/**
 * The webhook receiver of `laurel-system-hooks` (bench/variants.ts): an HTTP server on loopback in
 * the runner's process that answers every POST 204 and counts them. Started once, on first use;
 * unref'd, so it never keeps the runner alive.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let started: Promise<string> | null = null;
let received = 0;

/** The receiver's URL (started on first call). */
export function webhookReceiver(): Promise<string> {
  started ??= new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.statusCode = 204;
        res.end();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    });
  });
  return started;
}

/** Deliveries received so far. */
export const webhooksReceived = (): number => received;
