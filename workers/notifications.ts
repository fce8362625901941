/**
 * Queue `notifications`: every second, the deliveries due on the service's clock are claimed and
 * sent (src/engine/notifications/send.ts), over this process's SMTP transport. Scheduling is the
 * log drainer's (workers/log-drain.ts).
 */
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { smtpMailer, type Mailer } from '../src/engine/notifications/email.js';
import { sendDue, type SendResult } from '../src/engine/notifications/send.js';

export const NOTIFICATIONS_QUEUE = 'notifications';

export class Notifier {
  private readonly deps: Deps;
  private readonly pool: pg.Pool;
  private readonly mailer: Mailer | null;

  constructor(deps: Deps, pool: pg.Pool) {
    this.deps = deps;
    this.pool = pool;
    this.mailer = smtpMailer(deps.settings.smtpUrl);
  }

  send(): Promise<SendResult> {
    return sendDue(this.deps, this.pool, this.mailer);
  }

  close(): void {
    this.mailer?.close();
  }
}
