/**
 * The workers' queues, in the order a workers process makes them (docs/architecture.md, "workers").
 * A new queue is a file of workers/ declaring it (workers/queue.ts) and a line here.
 */
import { achievementsQueue } from './achievements.js';
import { anniversariesQueue } from './anniversaries.js';
import { auditQueue } from './audit.js';
import { configCopyQueue } from './config-copy.js';
import { leaderboardsQueue } from './leaderboards.js';
import { logDrainQueue } from './log-drain-queue.js';
import { logRetentionQueue } from './log-retention.js';
import { notificationsQueue } from './notifications.js';
import { pointsTimeQueue } from './points-time.js';
import { snapshotQueue } from './snapshot.js';
import { webhooksQueue } from './webhooks.js';

export const QUEUES = [
  configCopyQueue, logDrainQueue, auditQueue, logRetentionQueue, achievementsQueue, pointsTimeQueue,
  anniversariesQueue, snapshotQueue, leaderboardsQueue, notificationsQueue, webhooksQueue,
] as const;
