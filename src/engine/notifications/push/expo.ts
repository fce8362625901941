/**
 * Expo's push service: `POST LAUREL_EXPO_URL` with one message (and the access token when set);
 * a ticket whose error is `DeviceNotRegistered` means the token is gone.
 */
import type { Settings } from '../../../lib/settings.js';
import { TransientPushError, type PushMessage, type PushOutcome, type PushTransport } from './message.js';

const TIMEOUT_MS = 15_000;

export class ExpoTransport implements PushTransport {
  private readonly settings: NonNullable<Settings['expo']>;

  constructor(settings: NonNullable<Settings['expo']>) {
    this.settings = settings;
  }

  async send(token: string, message: PushMessage): Promise<PushOutcome> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.settings.accessToken !== null) headers.authorization = `Bearer ${this.settings.accessToken}`;
    let res: Response;
    try {
      res = await fetch(this.settings.url, {
        method: 'POST', headers, signal: AbortSignal.timeout(TIMEOUT_MS),
        body: JSON.stringify([{ to: token, title: message.title, body: message.body, data: message.data, sound: 'default' }]),
      });
    } catch (err) {
      throw new TransientPushError((err as Error).message);
    }
    if (res.status === 429 || res.status >= 500) throw new TransientPushError(`Expo HTTP ${res.status}`);
    if (!res.ok) throw new Error(`Expo refused the message: HTTP ${res.status}`);
    const ticket = ((await res.json()) as { data: { status: string; details?: { error?: string }; message?: string }[] }).data[0];
    if (ticket?.status === 'ok') return 'sent';
    if (ticket?.details?.error === 'DeviceNotRegistered') return 'gone';
    throw new Error(`Expo refused the message: ${ticket?.message ?? 'no ticket'}`);
  }

  close(): void {}
}
