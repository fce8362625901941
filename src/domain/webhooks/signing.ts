/**
 * Signing a webhook delivery both ways (API.md, "Webhooks"): `X-Trophy-Signature`, base64 of
 * HMAC-SHA256 keyed with the whole secret string (`whsec_...` included) over the raw body; and the
 * Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,<base64>`
 * of HMAC-SHA256 keyed with the bytes the base64 after `whsec_` stands for, over
 * `<id>.<timestamp>.<body>`). During a rotation every secret in force signs: the Standard header
 * lists them space-separated, as its spec says, and `X-Trophy-Signature` comma-separated (base64
 * holds no comma), the newest first.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret: 24 random bytes, `whsec_<base64>`. */
export function newSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

export function trophySignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('base64');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
}

/** The headers of one attempt: `secrets` the ones in force, newest first; `timestamp` in Unix seconds. */
export function signedHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-trophy-signature': secrets.map((s) => trophySignature(s, body)).join(','),
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, id, timestamp, body)).join(' '),
  };
}
