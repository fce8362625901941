/**
 * How a snapshot finds the keys of its patterns (src/engine/durability/snapshot.ts) in few walks of
 * the keyspace. `SCAN`'s `MATCH` filters what a walk returns, not what it reads: each walk costs the
 * whole keyspace (on a million users' 3.6 million keys, about 2.6 s of Redis), so the patterns
 * share walks (docs/performance.md). Patterns whose hash tag begins with another letter than `p` share one
 * walk (`<prefix>:{[^p]*`: a partition's tag `{p<N>}` holds the users' keys, the bulk); a
 * partition's own keys (`<prefix>:{p*}:<name>`) share another, by the first letters of their
 * names; any other pattern walks alone. Each key a walk returns is kept only when one of the
 * patterns matches it, so the keys found are exactly the patterns' own.
 */
import { scanKeys, type RedisClient } from '../../redis/client.js';

/** The walks (SCAN MATCH patterns) that together return every key of `patterns` (globs with `*` only). */
export function walksFor(prefix: string, patterns: string[]): string[] {
  const tag = `${prefix}:{`;
  const partition = `${prefix}:{p*}:`;
  const walks = new Set<string>();
  const letters = new Set<string>();
  for (const p of patterns) {
    const next = p.slice(tag.length, tag.length + 1);
    if (p.startsWith(partition) && /^[a-z]$/.test(p.slice(partition.length, partition.length + 1))) letters.add(p[partition.length]);
    else if (p.startsWith(tag) && /^[a-oq-z]$/.test(next)) walks.add(`${tag}[^p]*`);
    else walks.add(p);
  }
  if (letters.size > 0) walks.add(`${partition}[${[...letters].sort().join('')}]*`);
  return [...walks];
}

/** A glob of `*` only as a regular expression of the whole key. */
function matcher(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
}

/** Every key of `patterns` (globs with `*` only), a batch at a time, in the fewest walks. */
export async function* keysOfPatterns(redis: RedisClient, prefix: string, patterns: string[]): AsyncGenerator<string[]> {
  const kept = patterns.map(matcher);
  for (const walk of walksFor(prefix, patterns)) {
    for await (const batch of scanKeys(redis, walk, 1000)) {
      const keys = batch.filter((key) => kept.some((m) => m.test(key)));
      if (keys.length > 0) yield keys;
    }
  }
}
