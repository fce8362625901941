/**
 * Which store an error came from, where the boundary of that store marked it
 * (src/postgres/pool.ts marks every error of its pools): a refused or reset connection reads the
 * same from any of them, and an outage is told to the client and the log under the right name
 * (src/redis/outage.ts counts only Redis's).
 */
const STORE = Symbol('laurel.store');

export type Store = 'postgres';

/** Marks `err` (an object) as `store`'s; answers it. */
export function markStore<E>(err: E, store: Store): E {
  if (typeof err === 'object' && err !== null && !Object.prototype.hasOwnProperty.call(err, STORE)) {
    Object.defineProperty(err, STORE, { value: store, enumerable: false });
  }
  return err;
}

/** The store that marked `err`, or null. */
export function storeOf(err: unknown): Store | null {
  if (typeof err !== 'object' || err === null) return null;
  return (err as { [STORE]?: Store })[STORE] ?? null;
}
