/**
 * Queue `leaderboards`: every 5 seconds, the runs every time zone has finished are finalised
 * (src/engine/leaderboards/finalise.ts).
 */
export const FINALISE_MS = 5000;
