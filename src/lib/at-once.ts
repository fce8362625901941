/**
 * Work over many items with at most `n` of them under way at once: a read that calls Redis once
 * for each of many items (a board's shards) holds the arguments and answers of `n` calls at a
 * time, not of all of them (src/redis/sharded-rankings.ts).
 */
export async function atMostAtOnce<T>(items: readonly T[], n: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  }));
}
