import type { AttributeFilter } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';
/**
 * What refers to a metric, an achievement, a points system or an attribute: deleting one that something still
 * uses is refused with the list, so that nothing is left pointing at nothing.
 */

/** Descriptions of what uses a metric ('achievement "x"', ...); empty when nothing does. */
export function usesOfMetric(snapshot: Snapshot, metricId: string): string[] {
  const uses: string[] = [];
  for (const a of snapshot.achievements.values()) if (a.metricId === metricId) uses.push(`achievement "${a.key}"`);
  for (const t of snapshot.pointsTriggers.values()) {
    if (t.metricId === metricId) uses.push(`a trigger of points system "${snapshot.pointsSystems.get(t.systemId)?.key ?? t.systemId}"`);
  }
  for (const lb of snapshot.leaderboards.values()) if (lb.metricId === metricId) uses.push(`leaderboard "${lb.key}"`);
  if (snapshot.streak?.metrics.some((m) => m.metricId === metricId)) uses.push('the streak settings');
  return uses;
}

export function usesOfAchievement(snapshot: Snapshot, achievementId: string): string[] {
  const uses: string[] = [];
  for (const a of snapshot.achievements.values()) if (a.achievementIds.includes(achievementId)) uses.push(`achievement "${a.key}"`);
  for (const t of snapshot.pointsTriggers.values()) {
    if (t.achievementId === achievementId) uses.push(`a trigger of points system "${snapshot.pointsSystems.get(t.systemId)?.key ?? t.systemId}"`);
  }
  return uses;
}

export function usesOfPointsSystem(snapshot: Snapshot, systemId: string): string[] {
  const uses: string[] = [];
  for (const lb of snapshot.leaderboards.values()) if (lb.pointsSystemId === systemId) uses.push(`leaderboard "${lb.key}"`);
  return uses;
}

/**
 * What names an attribute: the achievements, points triggers and boosts that filter by it (user or
 * event attribute), and the leaderboards that break their users down by it.
 */
export function usesOfAttribute(snapshot: Snapshot, attributeId: string): string[] {
  const uses: string[] = [];
  const names = (filters: AttributeFilter[]) => filters.some((f) => f.attributeId === attributeId);
  const system = (id: string) => `points system "${snapshot.pointsSystems.get(id)?.key ?? id}"`;
  for (const a of snapshot.achievements.values()) {
    if (names(a.userAttributes) || names(a.eventAttributes)) uses.push(`achievement "${a.key}"`);
  }
  for (const t of snapshot.pointsTriggers.values()) {
    if (names(t.userAttributes) || names(t.eventAttributes)) uses.push(`a trigger of ${system(t.systemId)}`);
  }
  for (const b of snapshot.pointsBoosts.values()) if (names(b.userAttributes)) uses.push(`boost "${b.name}" of ${system(b.systemId)}`);
  for (const lb of snapshot.leaderboards.values()) if (lb.breakdownAttributes.includes(attributeId)) uses.push(`leaderboard "${lb.key}"`);
  return uses;
}

/** The refusal of a reference that names nothing: 'metricId must be the id of a metric (got "x")'. */
export function unknownReference(field: string, what: string, id: string | null): string {
  return `${field} must be the id of ${what} (got "${id ?? ''}")`;
}

/** The refusal message for a delete, or null when nothing uses the entity. */
export function stillUsed(what: string, uses: string[]): string | null {
  return uses.length === 0 ? null : `${what} is used by ${uses.join(', ')}; change those first`;
}

/** An id named by `<x>Id` or `<x>Key`: `{ id }` (undefined when neither is given), or a message. */
export function idOf<T extends { id: string }>(
  id: string | undefined, key: string | undefined, byKey: Map<string, T>, field: string, what: string,
): { id: string | undefined } | string {
  if (id !== undefined || key === undefined) return { id };
  const found = byKey.get(key);
  return found === undefined ? `${field} "${key}" is not the key of ${what}` : { id: found.id };
}
