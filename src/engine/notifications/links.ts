/**
 * The links of an email: `List-Unsubscribe` (one-click, RFC 8058) and the preferences page, under
 * the settings' `publicUrl`, each with a token that names the user
 * (src/domain/notifications/link-tokens.ts), signed with the installation's secret (made once, kept
 * in Redis: src/redis/keys.ts signingSecret).
 */
import { randomBytes } from 'node:crypto';
import { signToken } from '../../domain/notifications/link-tokens.js';
import type { Context } from '../context.js';

const secrets = new WeakMap<Context['redis'], Promise<string>>();

/** The installation's signing secret: the first process that needs it makes it. */
export function signingSecret(deps: Pick<Context, 'redis' | 'keys'>): Promise<string> {
  let secret = secrets.get(deps.redis);
  if (secret === undefined) {
    secret = (async () => {
      await deps.redis.set(deps.keys.signingSecret, randomBytes(32).toString('hex'), 'NX');
      const value = await deps.redis.get(deps.keys.signingSecret);
      if (value === null) throw new Error('the signing secret is missing from Redis');
      return value;
    })();
    secret.catch(() => secrets.delete(deps.redis));
    secrets.set(deps.redis, secret);
  }
  return secret;
}

export interface EmailLinks {
  unsubscribeUrl: string;
  preferencesUrl: string;
}

export function emailLinks(publicUrl: string, secret: string, tenant: string, userId: string): EmailLinks {
  const token = signToken(secret, { tenant, userId });
  return { unsubscribeUrl: `${publicUrl}/unsubscribe/${token}`, preferencesUrl: `${publicUrl}/preferences/${token}` };
}
