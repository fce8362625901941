/**
 * An erased user's own boosts (a points boost for one user, `userId`: docs/api.md, "Points"), or
 * those of every user of a deleted tenant: deleted from the configuration, and from its copy in
 * Postgres at once (the copy worker would take them out on its next pass, after the erasure said
 * it was done). Answers how many.
 */
import type pg from 'pg';
import type { ErasedUser } from '../../domain/erasure.js';
import type { PointsBoost } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { DEFAULT_TENANT } from '../../redis/keys.js';
import type { Context } from '../context.js';

/** The boosts for the user alone (their export lists them, their erasure deletes them). */
export function boostsOf(snapshot: Snapshot, tenant: string, userId: string): PointsBoost[] {
  return [...snapshot.pointsBoosts.values()].filter((b) => b.userId === userId && (b.tenant ?? DEFAULT_TENANT) === tenant);
}

export async function eraseBoosts(deps: Pick<Context, 'store' | 'settings'>, pool: pg.Pool, who: ErasedUser): Promise<number> {
  // Read from Redis, not this process's copy: a boost made a moment ago counts.
  await deps.store.reload();
  return deleteBoosts(deps, pool, boostsOf(deps.store.current, who.tenant, who.userId).map((b) => b.id));
}

/** The boosts for one user each of a tenant's users, read from Redis. */
export async function tenantUserBoosts(deps: Pick<Context, 'store'>, tenant: string): Promise<PointsBoost[]> {
  await deps.store.reload();
  return [...deps.store.current.pointsBoosts.values()].filter((b) => b.userId !== null && (b.tenant ?? DEFAULT_TENANT) === tenant);
}

/** Deletes boosts (a deleted tenant's users' own); answers how many. */
export async function eraseTenantBoosts(deps: Pick<Context, 'store' | 'settings'>, pool: pg.Pool, boosts: PointsBoost[]): Promise<number> {
  return deleteBoosts(deps, pool, boosts.map((b) => b.id));
}

async function deleteBoosts(deps: Pick<Context, 'store' | 'settings'>, pool: pg.Pool, theirs: string[]): Promise<number> {
  let n = 0;
  for (const id of theirs) if (await deps.store.delete('pboosts', id)) n++;
  if (theirs.length > 0) {
    await pool.query('DELETE FROM laurel_config WHERE prefix = $1 AND kind = $2 AND id = ANY ($3)', [deps.settings.prefix, 'pboosts', theirs]);
  }
  return n;
}
