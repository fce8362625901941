/** The audit log read for the Admin API (docs/api.md, "Audit log"): a page of entries, newest first, from Postgres. */
import type { Context } from '../context.js';
import type { AuditEntry } from '../../domain/audit.js';
import { listAuditEntries, type AuditFilter } from '../../postgres/audit.js';

/** A page of entries matching `filter`, and whether more follow. */
export async function auditPage(deps: Pick<Context, 'postgres' | 'settings'>, filter: AuditFilter): Promise<{ entries: AuditEntry[]; more: boolean }> {
  return listAuditEntries(await deps.postgres(), deps.settings.prefix, filter);
}
