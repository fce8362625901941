/**
 * APNs over HTTP/2 with token auth: a provider token (an ES256 JWT with the key id and team id,
 * signed with the .p8 key) made once and used for 50 minutes (Apple refuses one older than an hour,
 * and one renewed more often than every 20 minutes), one HTTP/2 session kept open. A 410, or a 400
 * BadDeviceToken, means the token is gone.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { signJwt } from '../../../domain/notifications/push-jwt.js';
import type { Settings } from '../../../lib/settings.js';
import { TransientPushError, type PushMessage, type PushOutcome, type PushTransport } from './message.js';

const TOKEN_LIFE_MS = 50 * 60_000;
const TIMEOUT_MS = 15_000;

export class ApnsTransport implements PushTransport {
  private readonly settings: NonNullable<Settings['apns']>;
  private readonly key: KeyObject;
  private token: { jwt: string; at: number } | null = null;
  private session: http2.ClientHttp2Session | null = null;

  constructor(settings: NonNullable<Settings['apns']>) {
    this.settings = settings;
    this.key = createPrivateKey(readFileSync(settings.keyFile, 'utf8'));
  }

  /** The provider token, made again once it is 50 minutes old (wall time). */
  private providerToken(): string {
    const now = Date.now();
    if (this.token === null || now - this.token.at >= TOKEN_LIFE_MS) {
      this.token = { jwt: signJwt('ES256', this.key, { kid: this.settings.keyId }, { iss: this.settings.teamId, iat: Math.floor(now / 1000) }), at: now };
    }
    return this.token.jwt;
  }

  private connection(): http2.ClientHttp2Session {
    if (this.session === null || this.session.closed || this.session.destroyed) {
      const session = http2.connect(this.settings.url);
      session.on('error', () => { if (this.session === session) this.session = null; });
      session.on('close', () => { if (this.session === session) this.session = null; });
      this.session = session;
    }
    return this.session;
  }

  send(token: string, message: PushMessage): Promise<PushOutcome> {
    const payload = JSON.stringify({ aps: { alert: { title: message.title, body: message.body }, sound: 'default' }, ...message.data });
    return new Promise((resolve, reject) => {
      let req: http2.ClientHttp2Stream;
      try {
        req = this.connection().request({
          ':method': 'POST', ':path': `/3/device/${token}`, authorization: `bearer ${this.providerToken()}`,
          'apns-topic': this.settings.topic, 'apns-push-type': 'alert', 'apns-priority': '10', 'content-type': 'application/json',
        });
      } catch (err) {
        reject(new TransientPushError((err as Error).message));
        return;
      }
      req.setTimeout(TIMEOUT_MS, () => req.close(http2.constants.NGHTTP2_CANCEL));
      let status = 0;
      let body = '';
      req.on('response', (headers) => { status = Number(headers[':status']); });
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => { body += chunk; });
      req.on('error', (err) => reject(new TransientPushError(err.message)));
      req.on('close', () => {
        if (status === 200) return resolve('sent');
        const reason = body === '' ? '' : String((JSON.parse(body) as { reason?: string }).reason ?? '');
        if (status === 410 || (status === 400 && (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic'))) return resolve('gone');
        if (status === 0 || status === 429 || status >= 500) return reject(new TransientPushError(`APNs ${status || 'no answer'} ${reason}`.trim()));
        reject(new Error(`APNs refused the notification: ${status} ${reason}`.trim()));
      });
      req.end(payload);
    });
  }

  close(): void {
    this.session?.close();
  }
}
