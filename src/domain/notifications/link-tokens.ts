/**
 * The tokens in the links of emails (unsubscribe, preferences page): they name one user of one
 * tenant, signed with the installation's secret (HMAC-SHA256), so a token cannot be forged or
 * turned into another user's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface TokenSubject {
  tenant: string;
  userId: string;
}

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function signToken(secret: string, s: TokenSubject): string {
  const payload = Buffer.from(JSON.stringify([s.tenant, s.userId])).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The user a token names, or null when it is not one this secret signed. */
export function verifyToken(secret: string, token: string): TokenSubject | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(mac(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const [tenant, userId] = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    return typeof tenant === 'string' && typeof userId === 'string' ? { tenant, userId } : null;
  } catch {
    return null;
  }
}
