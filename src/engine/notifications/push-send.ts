/**
 * A push delivery (src/engine/notifications/send.ts): the template's title and body rendered with
 * Liquid, sent to each of the user's device tokens (src/engine/notifications/push/), the tokens a
 * provider reports gone removed from the user. Sent once it reached one device; tried again when
 * none took it for a reason worth trying again.
 */
import { renderText } from '../../domain/notifications/templates.js';
import type { NotificationTemplate } from '../../model/entities.js';
import type { Delivery, Settlement } from '../../postgres/notifications/deliveries.js';
import type { Context } from '../context.js';
import type { Pusher } from './push/index.js';
import { TransientPushError, type PushMessage } from './push/message.js';

export function pushMessage(template: NotificationTemplate, scope: Record<string, unknown>, d: Delivery): PushMessage {
  return {
    title: template.title === null ? '' : renderText(template, 'title', scope).replace(/[\r\n]+/g, ' ').trim(),
    body: renderText(template, 'body', scope),
    data: { deliveryId: d.id, type: d.type },
  };
}

/** Removes tokens a provider reported gone from the user's device tokens (a token added meanwhile stays). */
async function removeTokens(deps: Pick<Context, 'redis' | 'keys'>, d: Delivery, gone: string[]): Promise<void> {
  const key = deps.keys.forUser(d.tenant, d.userId).user;
  const raw = await deps.redis.hget(key, 'dt');
  if (raw === null) return;
  const kept = (JSON.parse(raw) as string[]).filter((t) => !gone.includes(t));
  await deps.redis.hset(key, 'dt', JSON.stringify(kept));
}

export async function sendPush(
  deps: Pick<Context, 'redis' | 'keys' | 'clock' | 'log'>, pusher: Pusher, d: Delivery, h: Record<string, string>, message: PushMessage,
  retry: (error: string) => Settlement,
): Promise<Settlement> {
  const tokens = JSON.parse(h.dt ?? '[]') as string[];
  let result;
  try {
    result = await pusher.send(tokens, message);
  } catch (err) {
    deps.log.warn({ err, delivery: d.id }, 'push not sent');
    return err instanceof TransientPushError ? retry(err.message) : { status: 'failed', reason: 'refused', error: (err as Error).message };
  }
  if (result.gone.length > 0) await removeTokens(deps, d, result.gone);
  if (result.sent > 0) return { status: 'sent', at: deps.clock.now() };
  if (result.gone.length > 0) return { status: 'suppressed', reason: 'no_device_token' };
  return { status: 'suppressed', reason: 'no_transport' };
}
