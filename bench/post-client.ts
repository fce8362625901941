/**
 * laurel's webhook client under load, in a process of its own (`npm run bench:post-floor` starts
 * it, and reads its CPU once it exits): `node dist/bench/post-client.js <url> <seconds> <in flight> [module]`
 * POSTs bench/webhook-delivery.ts's bytes with src/engine/webhooks/post.ts (or the `postWebhook` of
 * another module, to compare a client: BENCH_POST_CLIENT), that many at a time, for that long, and
 * prints how many it sent and what the receiver answered.
 */
import { postWebhook as laurels } from '../src/engine/webhooks/post.js';
import { deliveryBody, deliveryHeaders } from './webhook-delivery.js';

async function main(): Promise<void> {
  const [url, seconds, inFlight, module] = process.argv.slice(2);
  const postWebhook = module === undefined ? laurels : (await import(module) as { postWebhook: typeof laurels }).postWebhook;
  const until = Date.now() + Number(seconds) * 1000;
  const statuses: Record<number, number> = {};
  let errors = 0;
  const worker = async () => {
    while (Date.now() < until) {
      try {
        const { status } = await postWebhook(url, deliveryBody, deliveryHeaders, 15_000, true);
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: Number(inFlight) }, worker));
  console.log(JSON.stringify({ statuses, errors }));
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
