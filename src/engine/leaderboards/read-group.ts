/**
 * Which breakdown group a read of a board's rankings answers (`GET /v1/leaderboards/{key}`;
 * docs/api.md, "Keys scoped to one user"): an account's key reads the group its query names
 * (`userAttributes`); a key scoped to a user reads its own user's group, whatever the query names.
 * A group's rankings say who holds its values: a device that could read any group would learn
 * other users' attributes (a friends board lists exactly those of its ids in the group asked), so
 * it reads the one group whose values are its own user's.
 */
import type { Leaderboard } from '../../model/entities.js';
import type { Context } from '../context.js';
import { boardUser } from './read.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/**
 * The group a read of `lb` answers ('' on a board without breakdown attributes): `named()` for an
 * account's key (`user` null), else the group of the key's user; null when that user is in no
 * group, or unknown (the read then answers nobody).
 */
export async function groupToRead(deps: Deps, tenant: string, lb: Leaderboard, user: string | null, named: () => string): Promise<string | null> {
  if (user === null || lb.breakdownAttributes.length === 0) return named();
  return (await boardUser(deps, tenant, lb, user))?.group ?? null;
}
