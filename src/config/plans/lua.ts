/**
 * The shapes the scripts read from the plans (msgpack or JSON): short field names, since they
 * are decoded on every event that needs them.
 */

/** Entries of the Lua plan (field names are short: they are decoded on every event). */
export interface LuaAchievement {
  id: string;
  /** The completion field in the user hash. */
  cf: string;
  /** metric: the threshold. */
  v?: number;
  /** User-attribute filter: flat [field, value, ...] of the user hash. */
  ua?: string[];
  /** metric with event filters: 1-based position in the request's match flags, and progress field. */
  f?: number;
  pf?: string;
  /** achievement: completion fields of the prerequisites. */
  r?: string[];
  /** backfill of an unfiltered metric achievement: the total field in the user hash. */
  tf?: string;
  /** streak: the length that completes it. */
  l?: number;
  /** anniversary: it came (the worker worked it out on the user's calendar). */
  y?: 1;
}

/** A trigger as the scripts read it (short names: it travels with every event that needs it). */
export interface LuaTrigger {
  /** trigger id */
  i: string;
  /** system id */
  s: string;
  /** points */
  p: number;
  /** user-attribute filter: flat [field, value, ...] of the user hash */
  ua?: string[];
  /** streak: the length (and its multiples) that awards */
  l?: number;
}

/** The points part of a plan's details (recordEventPlan ARGV[5] `p`). */
export interface PointsDetails {
  /** Caps: system id -> maxPoints, or MAX_POINTS for a system without. */
  s: Record<string, number>;
  /** The metric's triggers, in the order of the plan's hot part (which carries the rest). */
  m?: LuaTrigger[];
  /** Achievement id -> its triggers. */
  a?: Record<string, LuaTrigger[]>;
  /** Streak triggers. */
  k?: LuaTrigger[];
  /** User-creation triggers. */
  c?: LuaTrigger[];
  /** Trigger id -> its limits, for the triggers that have some (lua/includes/points.lua). */
  r?: Record<string, LuaTriggerLimits>;
}

/** A trigger's limits as the event script reads them (src/domain/limits.ts). */
export interface LuaTriggerLimits {
  /** cooldownSeconds, in ms. */
  c?: number;
  /** maxAwards: the count, and its period's letter (h, d, w). */
  x?: number;
  p?: string;
}

/** A boost as the scripts read it (lua/includes/points.lua). */
export interface LuaBoost {
  i: string;
  s: string;
  m: number;
  /** rounding: d(own), u(p), n(earest) */
  r: string;
  /** first and last day field ('d:YYYY-MM-DD'; no last: open) */
  a: string;
  b?: string;
  ua?: string[];
}
