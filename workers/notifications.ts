/**
 * Queue `notifications`: every second, what the due index holds that may be due by now becomes
 * deliveries (src/engine/notifications/due-index.ts), then the deliveries due on the service's clock
 * are claimed and sent (src/engine/notifications/send.ts), over this process's SMTP transport and
 * push providers. Scheduling is the log drainer's (src/engine/log-drain/drain.ts).
 */
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { smtpMailer, type Mailer } from '../src/engine/notifications/email.js';
import { sendDue, type SendResult } from '../src/engine/notifications/send.js';
import { anyDue, dueWanted, promoteDue } from '../src/engine/notifications/due-index.js';
import { Pusher } from '../src/engine/notifications/push/index.js';
import { NOTIFICATIONS_QUEUE } from '../src/engine/jobs.js';
import { every, OnePass, type QueueSpec } from './queue.js';

export class Notifier {
  private readonly deps: Deps;
  private readonly pool: pg.Pool;
  private readonly mailer: Mailer | null;
  private readonly pusher: Pusher;

  constructor(deps: Deps, pool: pg.Pool) {
    this.deps = deps;
    this.pool = pool;
    this.mailer = smtpMailer(deps.settings.smtpUrl);
    this.pusher = new Pusher(deps.settings);
  }

  /** Set when the worker process stops: a pass finishes the delivery it is sending and gives back the rest. */
  private stopping = false;

  async send(): Promise<SendResult> {
    // Nothing is indexed while no template of those types exists (what was stays for when one does).
    if (anyDue(dueWanted(this.deps.store.current))) await promoteDue(this.deps, this.pool, this.deps.settings.prefix);
    return sendDue(this.deps, this.pool, { mailer: this.mailer, pusher: this.pusher }, () => this.stopping);
  }

  /** Stops the pass running after the delivery it is sending (close() once the pass is done). */
  stop(): void {
    this.stopping = true;
  }

  close(): void {
    this.mailer?.close();
    this.pusher.close();
  }
}

export const notificationsQueue: QueueSpec<{
  /** Sends the notifications due now, beside the scheduled passes. */
  notifyNow(): Promise<SendResult>;
}> = {
  name: NOTIFICATIONS_QUEUE,
  failure: 'notifications job failed',
  schedules: () => [every(NOTIFICATIONS_QUEUE, 1000, 'send')],
  start({ svc, pool, log }) {
    const notifier = new Notifier(svc, pool);
    const pass = new OnePass(() => notifier.send());
    return {
      async process() {
        const r = await pass.run();
        if (r.claimed > 0) log.info(r, 'notifications sent');
        return r;
      },
      testing: () => ({ notifyNow: () => pass.run() }),
      stop: () => notifier.stop(),
      close: () => notifier.close(),
    };
  },
};
