/**
 * The push channel of one worker process: the providers set up from the environment
 * (docs/notifications.md, "Setting up push"), each token sent to its own (message.ts providerOf).
 */
import type { Settings } from '../../../lib/settings.js';
import { ApnsTransport } from './apns.js';
import { ExpoTransport } from './expo.js';
import { FcmTransport } from './fcm.js';
import { providerOf, TransientPushError, type Provider, type PushMessage, type PushTransport } from './message.js';

export interface PushResult {
  sent: number;
  /** Tokens the providers reported gone. */
  gone: string[];
  /** Tokens of a provider that is not set up. */
  unsupported: number;
}

export class Pusher {
  private readonly transports: Partial<Record<Provider, PushTransport>>;

  constructor(settings: Pick<Settings, 'apns' | 'fcm' | 'expo'>) {
    this.transports = {
      ...(settings.apns ? { apns: new ApnsTransport(settings.apns) } : {}),
      ...(settings.fcm ? { fcm: new FcmTransport(settings.fcm) } : {}),
      ...(settings.expo ? { expo: new ExpoTransport(settings.expo) } : {}),
    };
  }

  /** Whether any provider is set up. */
  get enabled(): boolean {
    return Object.keys(this.transports).length > 0;
  }

  /**
   * Sends the message to every token; throws a TransientPushError when none was sent and one
   * failed in a way worth trying again (the delivery is tried again: the tokens that took it then
   * see it twice, which beats none of them seeing it).
   */
  async send(tokens: string[], message: PushMessage): Promise<PushResult> {
    const result: PushResult = { sent: 0, gone: [], unsupported: 0 };
    let transient: TransientPushError | null = null;
    for (const token of tokens) {
      const transport = this.transports[providerOf(token)];
      if (transport === undefined) {
        result.unsupported++;
        continue;
      }
      try {
        const outcome = await transport.send(token, message);
        if (outcome === 'sent') result.sent++;
        else result.gone.push(token);
      } catch (err) {
        if (!(err instanceof TransientPushError)) throw err;
        transient = err;
      }
    }
    if (result.sent === 0 && transient !== null) throw transient;
    return result;
  }

  close(): void {
    for (const t of Object.values(this.transports)) t.close();
  }
}
