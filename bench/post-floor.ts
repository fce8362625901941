/**
 * What a webhook POST costs this machine at the least (`npm run bench:post-floor`): the bench's own
 * receiver (bench/webhook-receiver.ts, uWebSockets.js on loopback, in this process) loaded by wrk,
 * the leanest HTTP/1.1 client there is, with a delivery's bytes (a `streak.started` payload signed
 * both ways, bench/wrk/webhook.lua). Reported per POST: the receiver's CPU (this process's, which
 * does nothing else meanwhile) and wrk's (this process's children's), with 1 connection (one POST
 * at a time) and with as many as laurel's sender keeps in flight per endpoint. No sender can cost
 * less than the client's share, nor the machine less than the two together: it is the floor under
 * `laurel-system-hooks` (docs/performance.md). Then laurel's own client (src/engine/webhooks/post.ts)
 * in wrk's place, in a process of its own (bench/post-client.ts), as many in flight: what laurel's
 * sender pays for the POST itself against wrk's share. BENCH_DURATION seconds a pass (8).
 */
import { readFileSync } from 'node:fs';
import { microsPerTick, statTimes } from './cpu.js';
import { runWrk, WRK_MISSING, wrkVersion } from './wrk.js';
import { ROOT } from './variants.js';
import { webhookReceiver, webhooksReceived } from './webhook-receiver.js';
import { execFile } from 'node:child_process';
import { IN_FLIGHT } from '../src/engine/webhooks/send.js';
import { deliveryBody as body, deliveryHeaders as headers } from './webhook-delivery.js';

/** This process's ticks and its waited children's (wrk's, once it exited). */
function ticks(): { own: number; children: number } {
  const [u, s, cu, cs] = statTimes(readFileSync('/proc/self/stat', 'utf8'));
  return { own: u + s, children: cu + cs };
}

async function main(): Promise<void> {
  if (wrkVersion() === null) throw new Error(WRK_MISSING);
  const us = microsPerTick();
  if (us === null) throw new Error('bench:post-floor reads /proc and getconf CLK_TCK (Linux)');
  const durationS = Number(process.env.BENCH_DURATION ?? 8);
  const url = await webhookReceiver();
  console.log(`webhook POST floor: ${Buffer.byteLength(body)} bytes of body, ${Object.keys(headers).length} headers, ${durationS} s a pass`);
  console.log('| connections | POSTs/s | receiver µs/POST | wrk µs/POST | both |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const connections of [1, IN_FLIGHT]) {
    const before = ticks();
    const received = webhooksReceived();
    const r = await runWrk({
      url, script: `${ROOT}bench/wrk/webhook.lua`, scriptArgs: [body, ...Object.entries(headers).flat()],
      threads: 1, connections, durationS, timeoutS: 5,
    }, AbortSignal.timeout((durationS + 30) * 1000));
    const after = ticks();
    const n = webhooksReceived() - received;
    if (n === 0 || r.statuses['204'] !== r.requests) throw new Error(`the receiver answered ${JSON.stringify(r.statuses)} to ${r.requests} requests`);
    const receiver = ((after.own - before.own) * us) / n;
    const client = ((after.children - before.children) * us) / n;
    console.log(`| ${connections} | ${Math.round(n / durationS).toLocaleString('en-US')} | ${receiver.toFixed(1)} | ${client.toFixed(1)} | ${(receiver + client).toFixed(1)} |`);
  }
  // laurel's own client in wrk's place, IN_FLIGHT at a time, in a child process (its CPU read as wrk's is);
  // and another to compare it with (BENCH_POST_CLIENT: a module exporting postWebhook), when given.
  const clients: [string, string[]][] = [[`laurel's client (src/engine/webhooks/post.ts), ${IN_FLIGHT} in flight`, []]];
  if (process.env.BENCH_POST_CLIENT) clients.push([`${process.env.BENCH_POST_CLIENT}, ${IN_FLIGHT} in flight`, [process.env.BENCH_POST_CLIENT]]);
  for (const [name, extra] of clients) {
    const before = ticks();
    const received = webhooksReceived();
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [`${ROOT}dist/bench/post-client.js`, url, String(durationS), String(IN_FLIGHT), ...extra], { timeout: (durationS + 30) * 1000 },
        (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    const after = ticks();
    const n = webhooksReceived() - received;
    const { statuses, errors } = JSON.parse(out) as { statuses: Record<string, number>; errors: number };
    if (n === 0 || errors > 0 || statuses['204'] !== n) throw new Error(`${name}: ${out.trim()} for ${n} received`);
    const receiver = ((after.own - before.own) * us) / n;
    const client = ((after.children - before.children) * us) / n;
    console.log(`| ${name} | ${Math.round(n / durationS).toLocaleString('en-US')} | ${receiver.toFixed(1)} | ${client.toFixed(1)} | ${(receiver + client).toFixed(1)} |`);
  }
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
