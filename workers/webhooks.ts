/**
 * Queue `webhooks`: every second, the webhook deliveries due on the service's clock are claimed and
 * started (src/engine/webhooks/send.ts) by this process's sender; the log drainer records them
 * (src/engine/log-drain/drain.ts) and tells the sender, which then claims them at once.
 */
import { WEBHOOKS_QUEUE } from '../src/engine/jobs.js';
import type { SendResult } from '../src/engine/webhooks/send.js';
import { every, type QueueSpec } from './queue.js';

export const webhooksQueue: QueueSpec<{
  /** Sends the deliveries due now and waits for every send in flight; answers the totals so far. */
  webhooksNow(): Promise<SendResult>;
}> = {
  name: WEBHOOKS_QUEUE,
  failure: 'webhooks job failed',
  schedules: () => [every(WEBHOOKS_QUEUE, 1000, 'send')],
  start: ({ webhooks, log }) => ({
    async process() {
      const claimed = await webhooks.pass();
      if (claimed > 0) log.debug({ claimed }, 'webhook deliveries started');
      return claimed;
    },
    testing: () => ({
      async webhooksNow() {
        await webhooks.pass();
        await webhooks.idle();
        return webhooks.totals;
      },
    }),
  }),
};
