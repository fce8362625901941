import type { Context } from './context.js';
import type { PendingPlacements } from './durability/outage-phase2.js';

/** What route modules and workers are given: the engine's context and this process's pending phase 2. */
export interface Deps extends Context {
  /** Leaderboard placements lost with Redis's connection, placed again once it answers. */
  placements: PendingPlacements;
}
