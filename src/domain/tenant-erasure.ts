/**
 * A deleted tenant's erasure (src/engine/erasure/tenant.ts): its users are erased together,
 * as one erasure. The `erased` entry it appends to every partition's log names the tenant and the
 * erasure, with `s: "tenant"`: a restore (src/engine/durability/restore.ts) brings back none of
 * the tenant's entries, users or keys once it meets one. The archive's lines of the tenant become
 * `redacted` entries as an erased user's do (src/domain/erasure.ts), each naming the tenant's
 * erasure instead of its user.
 */
import { ERASED_KIND, REDACTED_KIND, redactedBody } from './erasure.js';

/** The `s` of a tenant's `erased` entry. */
export const TENANT_SCOPE = 'tenant';

/** The body of a tenant's `erased` entry. */
export function tenantErasedBody(tenant: string, erasureId: string, at: number): string {
  return JSON.stringify({ t: tenant, ts: at, x: erasureId, s: TENANT_SCOPE });
}

/** The tenant a tenant's `erased` entry names, or null for any other entry. */
export function erasedTenantOf(kind: string, body: string): string | null {
  if (kind !== ERASED_KIND || !body.includes(`"s":"${TENANT_SCOPE}"`)) return null;
  const e = JSON.parse(body) as { t?: unknown; s?: unknown };
  return e.s === TENANT_SCOPE && typeof e.t === 'string' ? e.t : null;
}

/** The tenant an entry's body names, or null for a body that is no JSON object. */
export function tenantOfBody(body: string): string | null {
  try {
    const e = JSON.parse(body) as { t?: unknown } | null;
    return e !== null && typeof e === 'object' && typeof e.t === 'string' ? e.t : null;
  } catch {
    return null;
  }
}

/**
 * A line of the archive (`<id>\t<kind>\t<body>`) of the tenant rewritten as a `redacted` entry
 * naming the erasure; null for another tenant's line, an `erased` one or one redacted already.
 */
export function redactTenantLine(line: string, tenant: string, erasureId: string): string | null {
  const tab = line.indexOf('\t');
  const tab2 = line.indexOf('\t', tab + 1);
  if (tab < 0 || tab2 < 0) return null;
  const kind = line.slice(tab + 1, tab2);
  if (kind === ERASED_KIND || kind === REDACTED_KIND) return null;
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line.slice(tab2 + 1)) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (e === null || typeof e !== 'object' || e.t !== tenant) return null;
  return `${line.slice(0, tab)}\t${REDACTED_KIND}\t${JSON.stringify(redactedBody(kind, e, { tenant, erasureId }))}`;
}

/** The archive's lines (joined by '\n') of the tenant rewritten, with how many changed; null when none did. */
export function redactTenantLines(lines: string, tenant: string, erasureId: string): { lines: string; changed: number } | null {
  let changed = 0;
  const out = lines.split('\n').map((line) => {
    const r = redactTenantLine(line, tenant, erasureId);
    if (r === null) return line;
    changed++;
    return r;
  });
  return changed === 0 ? null : { lines: out.join('\n'), changed };
}
