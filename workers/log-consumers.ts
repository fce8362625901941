/**
 * The log's consumers (workers/log-consumer.ts), in the order each step of a drain pass goes
 * through them: the dead processes' phase 2 first, then the analytics, the notifications and the
 * webhooks. A new consumer is a file of workers/ declaring it and a line here.
 */
import { analyticsLog } from './analytics-log.js';
import type { LogConsumer } from './log-consumer.js';
import { notificationsLog } from './notifications-log.js';
import { replayLog } from './replay-log.js';
import { webhooksLog } from './webhooks-log.js';

export const LOG_CONSUMERS: readonly LogConsumer[] = [replayLog, analyticsLog, notificationsLog, webhooksLog];
