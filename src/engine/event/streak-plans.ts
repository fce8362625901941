/**
 * The plans of users with streak preferences (src/domain/streaks/preferences.ts): the metric's plan
 * with the user's rule in place of the tenant's. The api remembers the preferences of users seen
 * lately, as it does their zones; the event script checks them against the token the user hash
 * holds ('s:ov') and answers the stored ones when they differ (lua/recordEventPlan-4.lua, -12), so
 * a change made through another process is seen on the user's next event. A user without
 * preferences costs the api one lookup in an empty map, or one in this one once someone has them.
 */
import type { Configuration } from '../../config/configuration.js';
import type { MetricPlan } from '../../config/plans/achievements.js';
import { userAloneThreshold, userStreakRule } from '../../config/plans/streaks.js';
import { parseStreakPreferences, type StreakPreferences } from '../../domain/streaks/preferences.js';
import { BoundedMap } from '../../lib/memo.js';

/** A user's preferences as the api last saw them, with the plans made from them. */
export interface UserStreakPlans {
  token: string;
  prefs: StreakPreferences;
  /** The configuration version `plans` were made for. */
  version: number;
  plans: Map<string, MetricPlan>;
}

export class StreakPlans {
  private readonly map = new BoundedMap<string, UserStreakPlans>(100_000);

  /** The user's preferences as remembered; undefined: none as far as this process knows. */
  get(tenant: string, userId: string): UserStreakPlans | undefined {
    return this.map.size === 0 ? undefined : this.map.get(tenant + '\u0000' + userId);
  }

  /** Remembers what the script answered: the token and the preferences ('' for both: none). */
  set(tenant: string, userId: string, token: string, prefs: string): UserStreakPlans | undefined {
    const k = tenant + '\u0000' + userId;
    if (token === '') {
      this.map.delete(k);
      return undefined;
    }
    const entry: UserStreakPlans = { token, prefs: parseStreakPreferences(prefs), version: -1, plans: new Map() };
    this.map.set(k, entry);
    return entry;
  }

  /**
   * The plan of a metric for a user with preferences: by id '<plan id><token><rule>' (recordEventPlan
   * <plan>, lua/includes/hotPlan.lua userPlan), never the featureless script's, with the user's
   * streak rule's threshold alone and whether it extends the streak.
   */
  planOf(user: UserStreakPlans, config: Configuration, metricId: string): MetricPlan {
    if (user.version !== config.version) {
      user.plans.clear();
      user.version = config.version;
    }
    let plan = user.plans.get(metricId);
    if (plan === undefined) {
      const base = config.plans.get(metricId)!;
      const rule = userStreakRule(config.streak, user.prefs, metricId, config.streakAchievements);
      plan = {
        ...base,
        arg: { id: base.userBase.id + user.token + rule, full: base.userBase.full },
        hot: base.hot === '' ? '##' : base.hot,
        streakAlone: userAloneThreshold(config.streak, user.prefs, metricId),
        extendsStreak: rule.charAt(1) === '2',
      };
      user.plans.set(metricId, plan);
    }
    return plan;
  }
}
