/**
 * The log's consumers (src/engine/log-drain/consumer.ts), in the order each step of a drain pass goes
 * through them: the dead processes' phase 2 first, then the analytics, the notifications and the
 * webhooks. A new consumer is a file of src/engine/log-drain/ declaring it and a line here.
 */
import { analyticsLog } from './analytics.js';
import type { LogConsumer } from './consumer.js';
import { notificationsLog } from './notifications.js';
import { replayLog } from './replay.js';
import { webhooksLog } from './webhooks.js';

export const LOG_CONSUMERS: readonly LogConsumer[] = [replayLog, analyticsLog, notificationsLog, webhooksLog];
