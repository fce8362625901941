/**
 * Queue `log-retention` (src/engine/durability/log-retention.ts): every hour, while
 * LAUREL_LOG_RETENTION_DAYS is set, the archived event log's entries older than that deleted.
 */
export const LOG_RETENTION_QUEUE = 'log-retention';
/** How often the entries past their retention are deleted. */
export const LOG_RETENTION_MS = 3_600_000;
