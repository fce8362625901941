/**
 * Queue `webhooks`: every second, the webhook deliveries due on the service's clock are claimed and
 * started (src/engine/webhooks/send.ts); the log drainer records them (workers/log-drain.ts).
 */
export const WEBHOOKS_QUEUE = 'webhooks';
