/**
 * A user's streak preferences (PATCH /users/{id}/preferences `streak`, trophy 1.21.1
 * StreakPreferences): whether the user has a streak at all, and a rule of their own (metrics with
 * thresholds, evaluation) in place of the tenant's, under the tenant's frequency and freezes.
 *
 * The user hash keeps them as JSON in 's:o' (StreakPreferences below: metrics by id, a field the
 * user never set absent) and a token of them in 's:ov', which every event script reads
 * (lua/updatePreferences-3.lua writes both).
 */
import { STREAK_PREFERENCES_FIELD } from '../../model/fields.js';
import type { StreakSettings } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { StreakPreferencesView } from '../../model/views.js';

/** The preferences as stored: each field only once the user set it. */
export interface StreakPreferences {
  enabled?: boolean;
  evaluation?: 'all' | 'any';
  /** [metric id, threshold], in the order given. */
  metrics?: [string, number][];
}

/** The wire shape (StreakPreferences of the 1.21.1 spec). */
export type { StreakPreferencesView };

/** The preferences a user hash holds, or null when the user never set any. */
export function streakPreferencesOf(h: Record<string, string>): StreakPreferences | null {
  const raw = h[STREAK_PREFERENCES_FIELD];
  return raw === undefined ? null : parseStreakPreferences(raw);
}

/** The stored JSON, read back (Redis's cjson writes an empty list as an object: none is stored). */
export function parseStreakPreferences(raw: string): StreakPreferences {
  const o = JSON.parse(raw) as StreakPreferences;
  const p: StreakPreferences = {};
  if (typeof o.enabled === 'boolean') p.enabled = o.enabled;
  if (o.evaluation === 'all' || o.evaluation === 'any') p.evaluation = o.evaluation;
  if (Array.isArray(o.metrics)) p.metrics = o.metrics;
  return p;
}

/** As the API shows them: metrics by key (a metric deleted since is left out). */
export function streakPreferencesView(p: StreakPreferences, snapshot: Snapshot): StreakPreferencesView {
  const view: StreakPreferencesView = {};
  if (p.enabled !== undefined) view.enabled = p.enabled;
  if (p.evaluation !== undefined) view.evaluationMode = p.evaluation === 'all' ? 'AND' : 'OR';
  if (p.metrics !== undefined) {
    view.metrics = [];
    for (const [metricId, threshold] of p.metrics) {
      const metric = snapshot.metrics.get(metricId);
      if (metric !== undefined) view.metrics.push({ key: metric.key, threshold });
    }
  }
  return view;
}

/** The rule a user's streak follows: the tenant's, with what the user set in its place. */
export interface UserStreakRule {
  enabled: boolean;
  evaluation: 'all' | 'any';
  metrics: { metricId: string; threshold: number }[];
}

export function userRuleOf(rule: StreakSettings, p: StreakPreferences): UserStreakRule {
  return {
    enabled: p.enabled !== false,
    evaluation: p.evaluation ?? rule.evaluation,
    metrics: p.metrics === undefined ? rule.metrics : p.metrics.map(([metricId, threshold]) => ({ metricId, threshold })),
  };
}

/** Whether the user hash's preferences leave the user without a streak. */
export function streakDisabled(h: Record<string, string>): boolean {
  return streakPreferencesOf(h)?.enabled === false;
}
