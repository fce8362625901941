/**
 * A configuration version as the api and the workers use it: the snapshot, with what the scripts
 * need of it compiled once (src/config/plans/).
 */
import { Snapshot } from '../model/snapshot.js';
import type { Achievement, ConfigKind } from '../model/entities.js';
import { compilePlans, singlePlan, type MetricPlan } from './plans/achievements.js';
import type { LuaAchievement, PointsDetails } from './plans/lua.js';
import type { AnniversaryPlan } from './plans/anniversaries.js';
import type { TimeTrigger } from './plans/points.js';

export class Configuration extends Snapshot {
  /** What the event script needs of each metric, compiled once per version. */
  readonly plans: Map<string, MetricPlan>;
  /** The active composites, prerequisites first, in their Lua form. */
  readonly composites: LuaAchievement[];
  /** The points triggers that do not depend on a metric (achievement, streak, user creation), with the caps; null: none. */
  readonly points: PointsDetails | null;
  /** The active time triggers (accrued by the api and the workers, src/engine/points/time-awards.ts). */
  readonly timeTriggers: TimeTrigger[];
  /** Whether active streak achievements exist (the rules of users with streak preferences say so too). */
  readonly streakAchievements: boolean;
  /** The active anniversary achievements, fewest years first (src/engine/achievements/anniversaries.ts). */
  readonly anniversaries: AnniversaryPlan[];

  constructor(version: number, raw: Record<ConfigKind, Record<string, string>>) {
    super(version, raw);
    const compiled = compilePlans(this);
    this.plans = compiled.plans;
    this.composites = compiled.composites;
    this.points = compiled.points;
    this.timeTriggers = compiled.timeTriggers;
    this.streakAchievements = compiled.streakAchievements;
    this.anniversaries = compiled.anniversaries;
  }

  /**
   * The plan of completing one achievement outside the event path (the API, a backfill): its own
   * entry and the composites. Null when it cannot be completed (a filter's attribute is gone).
   */
  singlePlan(a: Achievement): Buffer | null {
    return singlePlan(a, this, this.composites, this.points);
  }
}
