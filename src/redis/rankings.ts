/**
 * The rankings' stored forms, read in one place: a ranking's members are `<order>|<user id>`
 * (lua/leaderboardRank-8.lua, lua/streakRank-4.lua: the order breaks ties, the earlier first), its
 * scores the values; a run's `:lv` hash and the webhooks' `:wr` hash keep a user's last place seen
 * as `<rank>|<value>`.
 */
import type { RedisClient } from './client.js';

/** A place in a ranking: its user, rank (from 1) and value. */
export interface Place {
  userId: string;
  rank: number;
  value: number;
}

/** A ranking's member: the order (src/domain/leaderboards/runs.ts orderOf) and the user, as the scripts write it. */
export function memberOf(order: string, userId: string): string {
  return `${order}|${userId}`;
}

/** The user a ranking's member names. */
export function userOfMember(member: string): string {
  return member.slice(member.indexOf('|') + 1);
}

/** The order a ranking's member carries (what breaks its ties). */
export function orderOfMember(member: string): string {
  return member.slice(0, member.indexOf('|'));
}

/** A ranking read with its scores (`[member, score, ...]`, the best first) as places, the first at rank `first`. */
export function placesOf(flat: string[], first = 1): Place[] {
  const places: Place[] = [];
  for (let i = 0; i < flat.length; i += 2) places.push({ userId: userOfMember(flat[i]), rank: first + i / 2, value: Number(flat[i + 1]) });
  return places;
}

/** `count` places of a ranking from the 0-based position `start`, the best first. */
export async function readPlaces(redis: RedisClient, ranking: string, start: number, count: number): Promise<Place[]> {
  if (count <= 0) return [];
  return placesOf(await redis.zrevrange(ranking, start, start + count - 1, 'WITHSCORES'), start + 1);
}

/** How many users a ranking holds. */
export function participantsOf(redis: RedisClient, ranking: string): Promise<number> {
  return redis.zcard(ranking);
}

/** A place as last seen (`<rank>|<value>`). */
export function seenText(rank: number, value: number): string {
  return `${rank}|${value}`;
}

/** A place last seen, from its text; null for none. */
export function seenPlace(text: string | null | undefined): { rank: number; value: number } | null {
  if (text === null || text === undefined) return null;
  const bar = text.indexOf('|');
  return { rank: Number(text.slice(0, bar)), value: Number(text.slice(bar + 1)) };
}
