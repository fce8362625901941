/**
 * Queue `audit` (src/engine/audit/drain.ts): every second, the audit log's entries queued in
 * Redis copied into Postgres (`drain`); every hour, those older than LAUREL_AUDIT_RETENTION_DAYS
 * deleted (`prune`).
 */
export const AUDIT_QUEUE = 'audit';
/** How often the entries past their retention are deleted. */
export const AUDIT_PRUNE_MS = 3_600_000;
