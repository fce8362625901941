/**
 * Queue `notifications`: every second, the deliveries due on the service's clock are claimed and
 * sent (src/engine/notifications/send.ts), over this process's SMTP transport and push providers. Scheduling is the
 * log drainer's (workers/log-drain.ts).
 */
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { smtpMailer, type Mailer } from '../src/engine/notifications/email.js';
import { sendDue, type SendResult } from '../src/engine/notifications/send.js';
import { Pusher } from '../src/engine/notifications/push/index.js';

export const NOTIFICATIONS_QUEUE = 'notifications';

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

  send(): Promise<SendResult> {
    return sendDue(this.deps, this.pool, { mailer: this.mailer, pusher: this.pusher });
  }

  close(): void {
    this.mailer?.close();
    this.pusher.close();
  }
}
