/**
 * A user identified explicitly (POST, PUT, PATCH /users): the upsertUser script with the
 * user-creation triggers' points, then what follows a user's write (src/engine/users/after-write.ts).
 */
import { boostsFor } from '../../config/plans/points.js';
import { hashFromFlat, type Identification, type PreparedIdentification, type UserHash } from '../../domain/users.js';
import { localDay } from '../../domain/time.js';
import { attributeOfField, dayField } from '../../model/fields.js';
import { userEntry } from '../../model/log.js';
import { ScriptCode } from '../../redis/codes.js';
import { markBreakdown } from '../leaderboards/leave-groups.js';
import type { Deps } from '../deps.js';
import { accrueTime } from '../points/time-awards.js';
import { refused } from '../script-errors.js';
import { afterUserWrite } from './after-write.js';
import * as upsertUser from '../../redis/scripts/upsertUser.js';

/** create: only a new user; upsert: either; update: only an existing one. */
export type IdentifyMode = 'create' | 'upsert' | 'update';

/** Identifies a user; answers whether it was created and the user hash after. */
export async function identifyUser(
  deps: Deps, tenant: string, mode: IdentifyMode, id: string, user: Identification, ident: PreparedIdentification, seq?: string,
): Promise<{ created: boolean; hash: UserHash }> {
  const { redis, keys, store, clock } = deps;
  const snapshot = store.current;
  const u = keys.forUser(tenant, id);
  const now = clock.now();
  const fields = Object.fromEntries(Object.entries(user).filter(([k, v]) => v != null && k !== 'id'));
  // A user created here gets the user-creation triggers' points, counted on the user's day.
  const creationTriggers = snapshot.points?.c;
  const day = localDay(ident.tz ?? '', now);
  const creationPoints = creationTriggers === undefined ? null
    : { dayField: dayField(day), json: JSON.stringify({ c: creationTriggers, s: snapshot.points!.s, b: boostsFor(snapshot, tenant, id, day) }) };
  // Time awards already due were earned under the attributes and zone the user has now: accrued
  // before they change (a trigger's filters, and the day an award counts on, read them).
  if (user.attributes != null || user.tz != null) await accrueTime(deps, tenant, id);
  const r = await upsertUser.run(redis, u, {
    mode, userId: id, now, needsEmail: ident.needsEmail, entry: userEntry(tenant, id, now, fields), creationPoints,
    pairs: markBreakdown(ident.pairs, snapshot),
  });
  if (r === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL) throw refused(r);
  if (typeof r === 'number') throw refused(r, id);
  const created = r.created;
  const hash = hashFromFlat(r.flat, 0);
  const attributes = new Map<string, string>();
  for (const field in hash) {
    const key = attributeOfField(field);
    if (key !== null) attributes.set(key, hash[field]);
  }
  await afterUserWrite(deps, tenant, id, {
    created, statsMoved: created, moved: r.moved, attributes, zone: async () => hash.tz ?? '',
    awards: created ? r.awards : [], now, order: seq ?? r.seq,
  });
  return { created, hash };
}
