/**
 * A deleted tenant's erasure (docs/api.md, "Tenants and keys"; docs/operations.md, "Answering an
 * erasure or access request"): its users erased together, as one erasure. Two steps:
 * - on the request, around the tenant's deletion (src/routes/admin/config.ts): before it, the
 *   erasure's record written (pending); after it, an `erased` entry naming the tenant appended to
 *   every partition's log (src/domain/tenant-erasure.ts), their ids stored on the record. No walk
 *   of the keyspace: the answer does not wait on the size of the installation;
 * - in the workers (src/engine/erasure/tenant-pass.ts), once the archive holds every one of
 *   those entries (so every entry of the tenant before them): the tenant's Redis keys removed
 *   (src/engine/erasure/tenant-erase.ts), the tenant gone from the keys shared with others and, in
 *   bulk, from Postgres; then the record is done with its counts. Meanwhile the tenant's data is
 *   out of reach (its keys are revoked, and the workers that meet its users in the due sets skip
 *   them: src/redis/users.ts tenantExists).
 * The record's `t` is the default tenant, so that an account's key reads it (the tenant is gone);
 * `d` names the deleted tenant. A process that dies before the entries leaves the record to the
 * workers, who finish it a minute later (or drop it when the tenant was not deleted after all).
 */
import { uuidv7 } from '../../domain/ids.js';
import { tenantErasedBody } from '../../domain/tenant-erasure.js';
import { DEFAULT_TENANT } from '../../redis/keys.js';
import * as logAppend from '../../redis/scripts/logAppend.js';
import { ERASED_KIND } from '../../domain/erasure.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock'>;

/** The deleted tenant a record erases, or undefined for a user's erasure. `h`: the record's fields. */
export function erasedTenantOfRecord(h: Record<string, string>): string | undefined {
  return h.d;
}

/** Writes a pending erasure of the tenant; answers its id. */
export async function startTenantErasure(deps: Deps, tenant: string): Promise<string> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  // The machine's time, not the service's clock (as a user's erasure: src/engine/erasure/erase.ts).
  const id = uuidv7();
  await redis.hset(keys.erasure(id), { t: DEFAULT_TENANT, d: tenant, s: 'pending', at: String(now), rk: '0', rm: '0' });
  await redis.sadd(keys.erasuresPending, id);
  return id;
}

/**
 * Appends the tenant's `erased` entry to every partition's log and stores their ids on the record
 * (`e`, a JSON array by partition): from then on the workers may finish the erasure.
 */
export async function logTenantErasure(deps: Deps, id: string, tenant: string, at: number): Promise<string[]> {
  const { redis, keys } = deps;
  const body = tenantErasedBody(tenant, id, at);
  const ids = await Promise.all(Array.from({ length: keys.partitions }, (_, p) => logAppend.run(redis, keys.partitionLog(p), ERASED_KIND, body)));
  await redis.hset(keys.erasure(id), 'e', JSON.stringify(ids));
  return ids;
}

/**
 * A tenant's erasure pending again with its log entries' ids (`laurel restore`, which read them in
 * the archive: the record was in the Redis lost); the workers' pass finishes it again.
 */
export async function startTenantErasureAgain(deps: Deps, id: string, tenant: string, at: number, logged: string[]): Promise<void> {
  const { redis, keys } = deps;
  await redis.hset(keys.erasure(id), { t: DEFAULT_TENANT, d: tenant, s: 'pending', at: String(at), e: JSON.stringify(logged) });
  await redis.sadd(keys.erasuresPending, id);
}
