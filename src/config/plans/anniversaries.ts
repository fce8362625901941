/**
 * The active anniversary achievements, compiled once per configuration version for the api and
 * the workers (src/engine/achievements/anniversaries.ts), and the fewest years among them, which the
 * event script's plan carries (lua/recordEventPlan-4.lua).
 */
import { userFilterOf } from '../../domain/filters.js';
import type { Achievement } from '../../model/entities.js';
import { completionField } from '../../model/fields.js';
import type { Snapshot } from '../../model/snapshot.js';

export interface AnniversaryPlan {
  achievement: Achievement;
  years: number;
  /** Its completion field in the user hash. */
  cf: string;
  /** Its user filter: flat [field, value, ...] of the user hash. */
  ua: string[];
  /** From when an anniversary completes it loudly (ms): one that came before is a backfill's. */
  loudFrom: number;
}

/** The active anniversary achievements whose filters can be met, fewest years first. */
export function compileAnniversaries(snapshot: Snapshot): AnniversaryPlan[] {
  const plans: AnniversaryPlan[] = [];
  for (const a of snapshot.achievements.values()) {
    if (a.trigger !== 'anniversary' || a.status !== 'active' || a.anniversaryYears == null) continue;
    const ua = userFilterOf(a.userAttributes, snapshot);
    if (ua === null) continue;
    plans.push({ achievement: a, years: a.anniversaryYears, cf: completionField(a.id), ua, loudFrom: Date.parse(a.activated ?? a.updated) });
  }
  return plans.sort((x, y) => x.years - y.years);
}
