/**
 * Queue `snapshot`: a snapshot of Redis into Postgres every LAUREL_SNAPSHOT_INTERVAL
 * (src/engine/durability/snapshot.ts): full the first time, then what changed since. One at a time per
 * installation, however many worker processes run (BullMQ runs a scheduled job once).
 */
export const SNAPSHOT_QUEUE = 'snapshot';
