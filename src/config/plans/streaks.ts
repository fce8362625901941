/**
 * The streak part of the scripts' plans (lua/includes/streak.lua): the rule as the event script
 * reads it (the tenant's, and a user's with streak preferences), and the streak achievements.
 */
import { daysOffOf, FREQUENCY_LETTER } from '../../domain/streaks/state.js';
import type { Achievement, StreakSettings } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { completionField } from '../../model/fields.js';
import type { LuaAchievement } from './lua.js';
import { userRuleOf, type StreakPreferences } from '../../domain/streaks/preferences.js';

/**
 * The streak rule as the event script reads it (lua/includes/streak.lua):
 * '<f><mode><all><sa><fz>|<position>|<t>;<t>...|<i>,<x>,<n>,<a>', then '|<weekdays off>' (digits
 * 0-6) for a daily rule with days off, or '' without a rule. A string
 * whose first five characters the script reads in place; the rest is parsed only when an event
 * needs it (decoding a msgpack plan on every event is dear in Redis's Lua).
 */
export function streakRule(snapshot: Snapshot, metricId: string, hasAchievements: boolean): string {
  const rule = snapshot.streak;
  if (rule === null || rule.metrics.length === 0) return '';
  return ruleText(rule, rule.metrics, rule.evaluation, metricId, hasAchievements);
}

/**
 * The rule of a user with streak preferences for one metric, in streakRule's form: the tenant's
 * frequency and freezes, the user's metrics and evaluation (a disabled streak: no metric, so no
 * event extends it). '' when the tenant has no streak rule at all (no frequency).
 */
export function userStreakRule(rule: StreakSettings | null, prefs: StreakPreferences, metricId: string, hasAchievements: boolean): string {
  if (rule === null) return '';
  const own = userRuleOf(rule, prefs);
  return ruleText(rule, own.enabled ? own.metrics : [], own.evaluation, metricId, hasAchievements);
}

function ruleText(
  rule: StreakSettings, metrics: readonly { metricId: string; threshold: number }[], evaluation: 'all' | 'any', metricId: string,
  hasAchievements: boolean,
): string {
  const position = metrics.findIndex((m) => m.metricId === metricId) + 1;
  const fz = rule.freezes
    ? [rule.freezes.initial, rule.freezes.max, rule.freezes.autoEarnInterval, rule.freezes.autoEarnAmount].join(',')
    : '';
  const head = FREQUENCY_LETTER[rule.frequency] + (position > 0 ? '2' : '1') + (evaluation === 'all' ? '1' : '0') +
    (position > 0 && hasAchievements ? '1' : '0') + (rule.freezes ? '1' : '0');
  const parts = [head, position, metrics.map((m) => m.threshold).join(';'), fz];
  // Only with days off: a rule without keeps the text (and the plan ids) it had.
  const off = daysOffOf(rule);
  if (off.length > 0) parts.push(off.join(''));
  return parts.join('|');
}

/**
 * The value at or above which one event of this metric meets the streak rule by itself (the rule
 * has this metric and either no other or evaluation `any`), or null. The api tells the script, so
 * the common extension reads neither the rule nor the period's accumulators.
 */
export function aloneThreshold(rule: Pick<StreakSettings, 'metrics' | 'evaluation'> | null, metricId: string): number | null {
  if (rule === null) return null;
  const m = rule.metrics.find((x) => x.metricId === metricId);
  if (m === undefined || (rule.metrics.length > 1 && rule.evaluation === 'all')) return null;
  return m.threshold;
}

/** aloneThreshold for a user with streak preferences (null when they disable the streak). */
export function userAloneThreshold(rule: StreakSettings | null, prefs: StreakPreferences, metricId: string): number | null {
  if (rule === null) return null;
  const own = userRuleOf(rule, prefs);
  return own.enabled ? aloneThreshold(own, metricId) : null;
}

/** Active streak achievements, shortest first, with their user filters (`filterOf` null: unusable). */
export function streakAchievements(snapshot: Snapshot, filterOf: (a: Achievement) => string[] | null): LuaAchievement[] {
  const out: LuaAchievement[] = [];
  for (const a of snapshot.achievements.values()) {
    if (a.trigger !== 'streak' || a.status !== 'active' || a.streakLength === null) continue;
    const ua = filterOf(a);
    if (ua === null) continue;
    const entry: LuaAchievement = { id: a.id, cf: completionField(a.id), l: a.streakLength };
    if (ua.length > 0) entry.ua = ua;
    out.push(entry);
  }
  return out.sort((x, y) => (x.l ?? 0) - (y.l ?? 0));
}
