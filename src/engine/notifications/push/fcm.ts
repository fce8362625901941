/**
 * FCM HTTP v1: an OAuth access token from the service account (a JWT-bearer assertion, RS256, sent
 * to its token URI or LAUREL_FCM_TOKEN_URL), kept until a minute before it expires, then
 * `POST <LAUREL_FCM_URL>/v1/projects/<project id>/messages:send`. A 404 UNREGISTERED (or 400
 * INVALID_ARGUMENT naming the token) means the token is gone.
 */
import { readFileSync } from 'node:fs';
import { signJwt } from '../../../domain/notifications/push-jwt.js';
import type { Settings } from '../../../lib/settings.js';
import { TransientPushError, type PushMessage, type PushOutcome, type PushTransport } from './message.js';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const TIMEOUT_MS = 15_000;

interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

export class FcmTransport implements PushTransport {
  private readonly settings: NonNullable<Settings['fcm']>;
  private readonly account: ServiceAccount;
  private token: Promise<{ value: string; until: number }> | null = null;

  constructor(settings: NonNullable<Settings['fcm']>) {
    this.settings = settings;
    this.account = JSON.parse(readFileSync(settings.serviceAccountFile, 'utf8')) as ServiceAccount;
  }

  private tokenUrl(): string {
    return this.settings.tokenUrl ?? this.account.token_uri ?? 'https://oauth2.googleapis.com/token';
  }

  /** The access token, asked for once and kept until a minute before it expires. */
  private async accessToken(): Promise<string> {
    const held = this.token === null ? null : await this.token.catch(() => null);
    if (held !== null && held.until > Date.now()) return held.value;
    this.token = (async () => {
      const now = Math.floor(Date.now() / 1000);
      const assertion = signJwt('RS256', this.account.private_key, {}, {
        iss: this.account.client_email, scope: SCOPE, aud: this.tokenUrl(), iat: now, exp: now + 3600,
      });
      const res = await fetch(this.tokenUrl(), {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (!res.ok) throw new TransientPushError(`FCM token exchange: HTTP ${res.status}`);
      const body = (await res.json()) as { access_token: string; expires_in: number };
      return { value: body.access_token, until: Date.now() + (body.expires_in - 60) * 1000 };
    })();
    return (await this.token).value;
  }

  async send(token: string, message: PushMessage): Promise<PushOutcome> {
    let res: Response;
    try {
      res = await fetch(`${this.settings.url}/v1/projects/${this.account.project_id}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: { token, notification: { title: message.title, body: message.body }, data: message.data } }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw err instanceof TransientPushError ? err : new TransientPushError((err as Error).message);
    }
    if (res.ok) return 'sent';
    const text = await res.text();
    if (res.status === 404 || (res.status === 400 && /UNREGISTERED|registration token/i.test(text))) return 'gone';
    if (res.status === 401) this.token = null;
    if (res.status === 401 || res.status === 429 || res.status >= 500) throw new TransientPushError(`FCM HTTP ${res.status}`);
    throw new Error(`FCM refused the message: HTTP ${res.status} ${text.slice(0, 200)}`);
  }

  close(): void {}
}
