/**
 * A user's preferences (PATCH /users/{id}/preferences): the updatePreferences script, then the
 * streak the preferences disable ended in the rankings and on the streak boards.
 */
import type { StreakPreferences } from '../../domain/streaks/preferences.js';
import { hashFromFlat, type UserHash } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import { operationEntry } from '../../model/log.js';
import type { Deps } from '../deps.js';
import { refreshExpiry } from '../streaks/operations.js';
import * as updatePreferencesScript from '../../redis/scripts/updatePreferences.js';

/**
 * Sets a user's notification preferences (type -> channels) and streak preferences (merged into
 * those stored; null: none passed); answers the user hash after. A streak the preferences disable
 * ends now, in the rankings and on the streak boards too. `unsubscribe` (the recipient's one-click
 * from an email's link) unsubscribes from all emails and keeps the email (src/domain/users.ts
 * isSubscribed).
 */
export async function updatePreferences(
  deps: Deps, tenant: string, id: string, notifications: Record<string, string[] | null>, streak: StreakPreferences | null,
  unsubscribe = false,
): Promise<UserHash> {
  const pairs: string[] = unsubscribe ? ['sub', 'u'] : [];
  const set: Record<string, string[]> = {};
  for (const [type, list] of Object.entries(notifications)) {
    if (list == null) continue;
    pairs.push('n:' + type, JSON.stringify(list));
    set[type] = list;
  }
  const u = deps.keys.forUser(tenant, id);
  const fields: { notifications: Record<string, string[]>; streak?: StreakPreferences; unsubscribed?: true } = { notifications: set };
  if (streak !== null) fields.streak = streak;
  if (unsubscribe) fields.unsubscribed = true;
  // A streak disabled is lost from now on in the user's zone, which the entry names (`z`) for a
  // restore to work the loss out again in (src/engine/durability/streak-rankings-from-log.ts).
  const tz = streak?.enabled === false ? ((await deps.redis.hget(u.user, 'tz')) ?? '') : undefined;
  const entry = operationEntry(tenant, id, deps.clock.now(), tz === undefined ? { f: fields } : { f: fields, z: tz });
  const r = await updatePreferencesScript.run(deps.redis, u, { entry, streak: streak === null ? null : JSON.stringify(streak), pairs });
  if (r === null) throw fail('user_not_found', id);
  const rule = deps.store.current.streak;
  if (tz !== undefined && rule !== null) await refreshExpiry(deps, tenant, id, rule, tz);
  return hashFromFlat(r, 0);
}
