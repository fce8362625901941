/**
 * The partitions' due sets of users: one sorted set per partition, each member naming a user,
 * `<tenant>|<user id>`, scored by when (ms) the user is due to be looked at. The time awards' is
 * one (`<slot>ptdue`, scored by the user's earliest next award: src/engine/points/time-due.ts), the
 * anniversaries' another (`<slot>anndue`, scored by when the user is looked at next:
 * src/engine/anniversaries/due.ts); the restore fills both again
 * (src/engine/durability/restore.ts). The scripts that move a user in them are given the member
 * (src/engine/anniversaries/next.ts) or build it (lua/recordEventPlan-4.lua).
 */
import { removeMatching, type RedisClient } from './client.js';
import { globEscaped, type Keys } from './keys.js';
import { userBatches } from './users.js';

/** What a due set is read and written with (the engine's context has both). */
export interface DueSetRedis {
  redis: RedisClient;
  keys: Keys;
}

/** A user as a member of a partition's due set: `<tenant>|<userId>`. */
export function dueMember(tenant: string, userId: string): string {
  return `${tenant}|${userId}`;
}

/** The user a due set's member names, as [tenant, user id]. */
export function dueMemberUser(member: string): [tenant: string, userId: string] {
  const bar = member.indexOf('|');
  return [member.slice(0, bar), member.slice(bar + 1)];
}

/** The pattern (SCAN's MATCH) of the members naming the users of `tenant`. */
export function dueMembersOf(tenant: string): string {
  return `${globEscaped(tenant)}|*`;
}

export class DueSet {
  /** `key`: the set of one partition. */
  constructor(readonly key: (keys: Keys, partition: number) => string) {}

  /**
   * The users due by `now` in one partition (at most `limit`), as [tenant, user id], the earliest
   * first. `exists`: whether a tenant is still there; a deleted tenant's users (whose data the
   * workers' erasure pass has not removed yet) leave the set instead.
   */
  async due(
    deps: DueSetRedis, partition: number, now: number, limit: number, exists: (tenant: string) => boolean,
  ): Promise<[string, string][]> {
    const members = await deps.redis.zrangebyscore(this.key(deps.keys, partition), '-inf', now, 'LIMIT', 0, limit);
    const due: [string, string][] = [];
    for (const [tenant, userId] of members.map(dueMemberUser)) {
      if (exists(tenant)) due.push([tenant, userId]);
      else await this.remove(deps, partition, tenant, userId);
    }
    return due;
  }

  /**
   * Puts users of one tenant and partition in, due at `at` (ms). `keep`: a user already in keeps
   * the time they are due at.
   */
  async add({ redis, keys }: DueSetRedis, partition: number, tenant: string, userIds: string[], at: number, keep = false): Promise<void> {
    if (userIds.length === 0) return;
    const members = userIds.flatMap((id) => [String(at), dueMember(tenant, id)]);
    const key = this.key(keys, partition);
    await (keep ? redis.zadd(key, 'NX', ...members) : redis.zadd(key, ...members));
  }

  /**
   * Puts every user of `tenants` in, due at `at` (`keep`: as add's); answers how many. A user is
   * looked at once due, which settles one that had nothing due.
   */
  async addEveryUser(on: DueSetRedis, tenants: string[], at: number, keep = false): Promise<{ users: number }> {
    let users = 0;
    for (const tenant of tenants) {
      for await (const { partition, userIds } of userBatches(on.redis, on.keys, tenant)) {
        await this.add(on, partition, tenant, userIds, at, keep);
        users += userIds.length;
      }
    }
    return { users };
  }

  /** The users of a tenant that is gone leave one partition's set; answers how many left. */
  removeTenant({ redis, keys }: DueSetRedis, partition: number, tenant: string): Promise<number> {
    return removeMatching(redis, this.key(keys, partition), dueMembersOf(tenant));
  }

  /** A user who is gone leaves the set. */
  async remove({ redis, keys }: DueSetRedis, partition: number, tenant: string, userId: string): Promise<void> {
    await redis.zrem(this.key(keys, partition), dueMember(tenant, userId));
  }
}

/** The time awards' due sets: each user scored by their earliest next award. */
export const TIME_AWARDS_DUE = new DueSet((keys, partition) => keys.partitionDue(partition));

/** The anniversaries' due sets: each user scored by when their next anniversary can have begun somewhere. */
export const ANNIVERSARIES_DUE = new DueSet((keys, partition) => keys.partitionAnniversaries(partition));
