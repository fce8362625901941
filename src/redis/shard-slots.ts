/**
 * Where a sharded board's rankings fall in a Cluster's slot space (docs/api.md, "Shards"): shard
 * n of `shards` takes a slot of the n-th of `shards` equal parts of the 16,384 slots (the slots
 * wholly inside it, however a split rounds the part's ends, as `redis-cli --cluster create` does).
 * Its hash tag ends in `:s<n>.<k>`, `k` the first number from 0 whose key's CRC16 slot falls
 * there: the same on every process and version, so a Cluster whose slots are split evenly among
 * `shards` primaries (or a divisor of `shards`) holds each shard on a primary of its own.
 */
import keySlot from 'cluster-key-slot';

export const SLOTS = 16_384;

/** The slots wholly inside part `n` of `parts` equal parts of the slot space: [from, to). */
export function slotRange(n: number, parts: number): { from: number; to: number } {
  return { from: Math.ceil((n * SLOTS) / parts), to: Math.floor(((n + 1) * SLOTS) / parts) };
}

/**
 * The hash tag suffix `:s<shard>.<k>` of shard `shard` of `shards` whose key (`keyOf(suffix)`, a
 * key holding the tag) falls in the shard's slot range. A range holds 1/shards of the slots, so
 * about `shards` candidates are tried; the bound is never reached by CRC16 (it would throw).
 */
export function spreadSuffix(keyOf: (suffix: string) => string, shard: number, shards: number): string {
  const { from, to } = slotRange(shard, shards);
  for (let k = 0; k < 1_000_000; k++) {
    const suffix = `:s${shard}.${k}`;
    const slot = keySlot(keyOf(suffix));
    if (slot >= from && slot < to) return suffix;
  }
  throw new Error(`no slot in ${from} to ${to - 1} for shard ${shard} of ${shards}`);
}
