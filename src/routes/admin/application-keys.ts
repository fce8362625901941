/**
 * Application API keys scoped to one user (trophy-admin 1.21.1 `/application-api-keys`): `POST` an
 * array of 1 to 100 `{ userId }` answers `{ created: [{ id, userId, key, prefix }], issues }` (201
 * when one was created, 200 when none), each key shown once; `DELETE ?ids=` revokes, at once in
 * every api process (src/engine/keys/user-keys.ts). A key acts for its user in the tenant of the call
 * that created it (Tenant-ID), and a key is revoked through that tenant too.
 */
import type { Deps } from '../../engine/deps.js';
import { deleteUserKey, storeUserKeys, type UserKey } from '../../engine/keys/user-keys.js';
import { generateUserKey, principalOf } from '../../http/auth.js';
import { json, ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { compileCheck, lastError, refuseBody } from '../../http/validate.js';
import { isUserId, USER_ID_MAX } from '../../domain/users.js';
import { batchAnswer, batchOf, IDS_QUERY, idsOf, type Issue } from './resource.js';
import type { UserKeyView } from '../../model/views.js';

const checkItem = compileCheck<{ userId: string }>({
  type: 'object', required: ['userId'], properties: { userId: { type: 'string' } },
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function applicationKeyRoutes(deps: Deps): Route[] {
  const { clock } = deps;

  return [
    {
      method: 'post', path: '/application-api-keys', family: 'admin',
      doc: {
        summary: 'Create keys that act for one user each (each key answered once)', body: { check: checkItem, batch: 100 },
        success: [201, 200], response: batchAnswer('created'), tenant: true,
      },
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const items = batchOf(req);
        const created = new Date(clock.now()).toISOString();
        const made: { index: number; view: UserKeyView; record: UserKey }[] = [];
        const issues: Issue[] = [];
        items.forEach((item, index) => {
          if (!checkItem(item)) {
            issues.push({ index, severity: 'error', message: lastError(checkItem) });
          } else if (!isUserId(item.userId)) {
            issues.push({ index, userId: item.userId, severity: 'error', message: `userId must have 1 to ${USER_ID_MAX} characters` });
          } else {
            const { id, prefix, key, hash } = generateUserKey();
            made.push({ index, view: { id, userId: item.userId, key, prefix }, record: { id, hash, userId: item.userId, tenant, created } });
          }
        });
        await storeUserKeys(deps, made.map((m) => m.record));
        return json(made.length > 0 ? 201 : 200, { created: made.map((m) => m.view), issues });
      },
    },
    {
      method: 'del', path: '/application-api-keys', family: 'admin',
      doc: { summary: 'Revoke keys scoped to a user', query: [IDS_QUERY], success: [200], response: batchAnswer('deleted'), tenant: true },
      handler: async (req) => {
        refuseBody(req.body);
        const { tenant } = principalOf(req);
        const ids = idsOf(queryOf(req));
        const found = await Promise.all(ids.map((id) => UUID.test(id) && deleteUserKey(deps, tenant, id)));
        const deleted: { id: string }[] = [];
        const issues: Issue[] = [];
        ids.forEach((id, i) => {
          if (found[i]) deleted.push({ id });
          else issues.push({ id, severity: 'error', message: `Application API key "${id}" not found` });
        });
        return ok({ deleted, issues });
      },
    },
  ];
}
