/**
 * Which answers the audit log records, and what of them (docs/api.md, "Audit log"): every Admin
 * API write (POST, PUT, PATCH, DELETE) whose admin key is known, refused or not (for the tenant it
 * names too), handed to the recorder (src/engine/audit/record.ts) once its answer is written
 * (src/http/server.ts `Answered`). A request without a valid admin key is not recorded: it names
 * no key (the logs show its refusal).
 */
import type { AuditRecorder } from '../engine/audit/record.js';
import { reachOf, type Principal } from './authorize.js';
import { documentPath } from './openapi.js';
import type { Answered, Family, Route } from './server.js';

/** The answers of Admin API writes, for `recorder`. */
export function auditAnswers(recorder: AuditRecorder, prefixes: Record<Family, string[]>): Answered {
  return {
    wants: (route: Route) => route.family === 'admin' && route.method !== 'get',
    answered(route, req, status, answer) {
      const principal = req.principal as Principal | null;
      const key = req.adminKey;
      if (key === null) return;
      recorder.record({
        requestId: req.id,
        keyId: key.id,
        // A bound key's: its tenant; else a route of one tenant's data: that tenant; else the whole
        // account (a request refused for the tenant it named too: the tenant is not known).
        tenantId: principal === null ? key.tenantId : principal.bound ?? (reachOf(route) === 'tenant' ? principal.tenant : null),
        operation: `${req.method} ${documentPath(route, prefixes)}`,
        pathIds: req.params,
        body: req.body,
        status,
        answer,
      });
    },
  };
}
