/**
 * Loads `lua/<name>-<numKeys>.lua`, flattens `--- @include "<helper>"` lines from `lua/includes/`
 * (each helper once; a missing or circular include fails loudly) and defines every script as a
 * custom ioredis command (EVALSHA, with EVAL on NOSCRIPT), on a single Redis or a Cluster alike.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { Redis, Cluster, Result } from 'ioredis';

export interface Script {
  name: string;
  numberOfKeys: number;
  lua: string;
  sha: string;
}

/** Walks up from this module to the package root (the same from `src/` and from `dist/src/`). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('laurel: package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

export const LUA_DIR = join(packageRoot(), 'lua');

const INCLUDE = /^--- @include "([A-Za-z0-9_]+)"\s*$/gm;

function flatten(source: string, file: string, dir: string, stack: string[], seen: Set<string>): string {
  return source.replace(INCLUDE, (_line, name: string) => {
    if (stack.includes(name)) throw new Error(`lua: circular include ${[...stack, name].join(' -> ')} in ${file}`);
    if (seen.has(name)) return '';
    const path = join(dir, 'includes', `${name}.lua`);
    if (!existsSync(path)) throw new Error(`lua: ${file} includes "${name}", but ${path} does not exist`);
    seen.add(name);
    return flatten(readFileSync(path, 'utf8'), `includes/${name}.lua`, dir, [...stack, name], seen);
  });
}

export function loadScripts(dir = LUA_DIR): Script[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((file) => {
      const m = /^([A-Za-z][A-Za-z0-9]*)-(\d+)\.lua$/.exec(file);
      if (!m) throw new Error(`lua: ${file} must be named <name>-<numberOfKeys>.lua`);
      const lua = flatten(readFileSync(join(dir, file), 'utf8'), file, dir, [], new Set());
      return { name: m[1], numberOfKeys: Number(m[2]), lua, sha: createHash('sha1').update(lua).digest('hex') };
    });
}

type Args = (string | number | Buffer)[];

/** The custom commands, typed (see ioredis examples/typescript/scripts.ts). */
declare module 'ioredis' {
  interface RedisCommander<Context> {
    recordEvent(user: string, userMetric: string, users: string, log: string, ...args: Args): Result<(string | number)[], Context>;
    recordEventPlan(
      user: string, userMetric: string, users: string, log: string, completions: string, history: string, points: string,
      due: string, ...args: Args
    ): Result<(string | number | (string | number)[])[], Context>;
    accruePoints(user: string, points: string, due: string, log: string, ...args: Args): Result<(number | string | unknown[])[], Context>;
    leaderboardPrune(ranking: string, members: string, expiry: string, ...args: Args): Result<number, Context>;
    leaderboardRank(
      ranking: string, members: string, history: string, awards: string, ...args: Args
    ): Result<[number, number, string, string], Context>;
    completeAchievement(
      user: string, users: string, log: string, completions: string, points: string, ...args: Args
    ): Result<(string | number | (string | number)[])[], Context>;
    backfillAchievement(user: string, userMetric: string, completions: string, ...args: Args): Result<number, Context>;
    streakRank(active: string, longest: string, expiry: string, ...args: Args): Result<number, Context>;
    streakPrune(active: string, expiry: string, ...args: Args): Result<number, Context>;
    grantFreezes(user: string, ...args: Args): Result<number[], Context>;
    restoreStreak(user: string, history: string, ...args: Args): Result<number[], Context>;
    pauseStreak(user: string, ...args: Args): Result<number[], Context>;
    upsertUser(user: string, users: string, log: string, points: string, ...args: Args): Result<(string | number)[], Context>;
    updatePreferences(user: string, ...args: Args): Result<(string | number)[], Context>;
    configPut(entities: string, uniques: string, version: string, ...args: Args): Result<number, Context>;
    configDelete(entities: string, uniques: string, version: string, ...args: Args): Result<number, Context>;
  }
}

export function defineScripts(client: Redis | Cluster, scripts: Script[]): void {
  for (const s of scripts) client.defineCommand(s.name, { lua: s.lua, numberOfKeys: s.numberOfKeys });
}

/**
 * Loads every script into every primary (SCRIPT LOAD), so a syntax error stops start-up and the
 * first requests skip the EVAL round. Returns the number of nodes loaded.
 */
export async function preloadScripts(client: Redis | Cluster, scripts: Script[]): Promise<number> {
  const nodes: Redis[] = 'nodes' in client && typeof client.nodes === 'function' && client.isCluster
    ? (client as Cluster).nodes('master')
    : [client as Redis];
  for (const node of nodes) {
    for (const s of scripts) {
      const sha = (await node.script('LOAD', s.lua)) as string;
      if (sha !== s.sha) throw new Error(`lua: ${s.name} loaded as ${sha}, expected ${s.sha}`);
    }
  }
  return nodes.length;
}

/** Domain outcomes that scripts return as small negative codes. */
export const ScriptCode = {
  TZ_MISMATCH: -1,
  SUBSCRIBE_WITHOUT_EMAIL: -2,
  EXISTS: -3,
  NOT_FOUND: -4,
  DUPLICATE: -5,
  FILTERED_OUT: -6,
  /** The streak's last period was judged in another zone: the api sends that zone's period too. */
  STREAK_ZONE: -7,
  /** A points trigger refuses to take a total below 0 (blockIfOutOfPoints): nothing changed. */
  OUT_OF_POINTS: -8,
  /** A time trigger's award is due: the api accrues it, then sends the event again. */
  TIME_DUE: -9,
} as const;
