/**
 * Signing a webhook delivery both ways (docs/webhooks.md): `X-Trophy-Signature`, base64 of
 * HMAC-SHA256 keyed with the whole secret string (`whsec_...` included) over the raw body; and the
 * Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,<base64>`
 * of HMAC-SHA256 keyed with the bytes the base64 after `whsec_` stands for, over
 * `<id>.<timestamp>.<body>`). During a rotation every secret in force signs: the Standard header
 * lists them space-separated, as its spec says, and `X-Trophy-Signature` comma-separated (base64
 * holds no comma), the newest first.
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret: 24 random bytes, `whsec_<base64>`. */
export function newSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** A secret's two HMAC keys, prepared once (a key made from bytes on every signature cost as much as the signature). */
interface Keys {
  trophy: KeyObject;
  standard: KeyObject;
}

const prepared = new Map<string, Keys>();

function keysOf(secret: string): Keys {
  let k = prepared.get(secret);
  if (k === undefined) {
    k = {
      trophy: createSecretKey(Buffer.from(secret, 'utf8')),
      standard: createSecretKey(Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')),
    };
    // Secrets are few (two per endpoint at most): the map is cleared rather than bounded finely.
    if (prepared.size >= 1000) prepared.clear();
    prepared.set(secret, k);
  }
  return k;
}

export function trophySignature(secret: string, body: string): string {
  return createHmac('sha256', keysOf(secret).trophy).update(body, 'utf8').digest('base64');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return 'v1,' + createHmac('sha256', keysOf(secret).standard).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
}

/** The headers of one attempt: `secrets` the ones in force, newest first; `timestamp` in Unix seconds. */
export function signedHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  let trophy = trophySignature(secrets[0], body);
  let standard = standardSignature(secrets[0], id, timestamp, body);
  for (let i = 1; i < secrets.length; i++) {
    trophy += ',' + trophySignature(secrets[i], body);
    standard += ' ' + standardSignature(secrets[i], id, timestamp, body);
  }
  return {
    'content-type': 'application/json',
    'x-trophy-signature': trophy,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard,
  };
}
