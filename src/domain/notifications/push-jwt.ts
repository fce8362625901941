/**
 * JSON Web Tokens as the push providers take them: ES256 (APNs provider tokens) and RS256 (Google's
 * OAuth JWT-bearer assertion), signed with node:crypto.
 */
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export function signJwt(alg: 'ES256' | 'RS256', key: KeyObject | string, header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const input = `${b64url(JSON.stringify({ alg, typ: 'JWT', ...header }))}.${b64url(JSON.stringify(claims))}`;
  const signer = createSign('SHA256');
  signer.update(input);
  // ES256's signature is r||s (IEEE P1363), not DER.
  const k = typeof key === 'string' ? createPrivateKey(key) : key;
  const signature = alg === 'ES256' ? signer.sign({ key: k, dsaEncoding: 'ieee-p1363' }) : signer.sign(k);
  return `${input}.${b64url(signature)}`;
}
