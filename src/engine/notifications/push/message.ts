/**
 * A push notification as laurel sends it, whatever the provider, and what a provider answers for
 * one device token. Which provider a token belongs to is read from its form: Expo's tokens are
 * `ExponentPushToken[...]` (or `ExpoPushToken[...]`), APNs device tokens 64 hex digits, anything
 * else FCM's registration tokens.
 */
import { LaurelError } from '../../../lib/errors.js';
export interface PushMessage {
  title: string;
  body: string;
  /** Laurel's delivery id and type, for the app. */
  data: Record<string, string>;
}

/** `sent`; `gone`: the provider says the token is no longer valid (it is removed from the user). */
export type PushOutcome = 'sent' | 'gone';

/** A failure worth trying again later (the provider unreachable, 429, 5xx). */
export class TransientPushError extends LaurelError {
  constructor(message: string) { super('push_retry', message); }
}

export type Provider = 'apns' | 'fcm' | 'expo';

export function providerOf(token: string): Provider {
  if (/^Expo(nent)?PushToken\[.+\]$/.test(token)) return 'expo';
  if (/^[0-9a-fA-F]{64}$/.test(token)) return 'apns';
  return 'fcm';
}

export interface PushTransport {
  send(token: string, message: PushMessage): Promise<PushOutcome>;
  close(): void;
}
