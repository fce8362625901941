/**
 * Achievements: their rules and wire shapes (the scripts' plans: src/config/plans/achievements.ts).
 *
 * An achievement completes at most once per user: the script writes `c:<id>` into the user hash
 * with HSETNX, so concurrent events cannot complete it twice. Kinds:
 *   metric       the user's total of the metric reaches `metricValue`; with event-attribute
 *                filters, only matching events count (a progress field `p:<id>` in the
 *                user-metric hash). Evaluated when an event crosses the threshold.
 *   api          completed only through POST achievements/{key}/complete.
 *   achievement  completes when all `achievementIds` are completed (cascades in the same script).
 *   streak       completes when the streak reaches `streakLength` (with streaks).
 *   anniversary  completes when the user's `anniversaryYears`-th anniversary comes on their
 *                calendar, at their next event or by the workers' pass
 *                (src/engine/achievements/anniversaries.ts).
 * Statuses: active (completable, shown), inactive (neither), locked (not completable, shown to
 * users who have it), archived (gone). User-attribute filters must all match the user.
 */
import { nameUuid } from './ids.js';
import type { Achievement, AttributeFilter } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';
import type { AchievementView, UserAchievementView } from '../model/views.js';

export type { AchievementView };

/** A stable completion id per tenant, user and achievement (the same on every answer). */
export function completionId(tenant: string, userId: string, achievementId: string): string {
  return nameUuid(`${tenant}\u0000${userId}\u0000${achievementId}`);
}


function filterView(filters: AttributeFilter[], snapshot: Snapshot): { key: string; value: string }[] {
  return filters.map((f) => ({ key: snapshot.attributes.get(f.attributeId)?.key ?? f.attributeId, value: f.attributeValue }));
}

/**
 * The Application API shape of an achievement (trophy AchievementResponse, 1.21.1), with
 * `anniversaryYears` on an anniversary achievement (Admin API 1.26.0's name for it).
 */
export function achievementView(a: Achievement, snapshot: Snapshot): AchievementView {
  const view: AchievementView = {
    id: a.id,
    key: a.key,
    name: a.name,
    trigger: a.trigger,
    description: a.description,
    badgeUrl: a.badgeUrl,
    userAttributes: filterView(a.userAttributes, snapshot),
  };
  if (a.trigger === 'metric') {
    view.metricId = a.metricId ?? undefined;
    view.metricValue = a.metricValue ?? undefined;
    view.metricName = (a.metricId && snapshot.metrics.get(a.metricId)?.name) || undefined;
    const events = filterView(a.eventAttributes, snapshot);
    view.eventAttributes = events;
    if (events.length > 0) view.eventAttribute = events[0];
  } else if (a.trigger === 'streak') {
    view.streakLength = a.streakLength ?? undefined;
  } else if (a.trigger === 'achievement') {
    view.achievementIds = a.achievementIds;
  } else if (a.trigger === 'anniversary') {
    view.anniversaryYears = a.anniversaryYears ?? undefined;
  }
  return view;
}

/** The stored completion value: the ISO time it was completed. */
export function userAchievementView(a: Achievement, snapshot: Snapshot, achievedAt: string | null): UserAchievementView {
  return { ...achievementView(a, snapshot), achievedAt };
}

/** Achievements shown to a user: active ones, and locked ones the user has. */
export function visibleTo(a: Achievement, completed: boolean): boolean {
  return a.status === 'active' || (a.status === 'locked' && completed);
}

export interface TenantStats {
  users: number;
  completions: Map<string, number>;
}

/** Percent of the tenant's users who completed an achievement, two decimals. */
export function rarity(stats: TenantStats, achievementId: string): number {
  if (stats.users === 0) return 0;
  return Math.round(((stats.completions.get(achievementId) ?? 0) / stats.users) * 10000) / 100;
}

export function withStats<T extends { id: string }>(view: T, stats: TenantStats) {
  return { ...view, completions: stats.completions.get(view.id) ?? 0, rarity: rarity(stats, view.id) };
}
