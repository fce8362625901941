/**
 * Loads `lua/<name>-<numKeys>.lua` (`<name>-n.lua`: the callers give the number of keys first), flattens `--- @include "<helper>"` lines from `lua/includes/`
 * (each helper once; a missing or circular include fails loudly) and defines every script as a
 * method of the client: the event path's as Redis functions (FCALL), the others as custom ioredis
 * commands (EVALSHA, with EVAL on NOSCRIPT), on a single Redis or a Cluster alike.
 */
import { primaries } from './client.js';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { Command, type Redis, type Cluster } from 'ioredis';

export interface Script {
  name: string;
  /** From the file's name; null for `<name>-n.lua`, whose callers give the number of keys first. */
  numberOfKeys: number | null;
  lua: string;
  sha: string;
  /** The source before its includes were flattened, and the includes in order (for functions). */
  body: string;
  includes: string[];
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

function flatten(source: string, file: string, dir: string, stack: string[], seen: Set<string>, order: string[]): string {
  return source.replace(INCLUDE, (_line, name: string) => {
    if (stack.includes(name)) throw new Error(`lua: circular include ${[...stack, name].join(' -> ')} in ${file}`);
    if (seen.has(name)) return '';
    const path = join(dir, 'includes', `${name}.lua`);
    if (!existsSync(path)) throw new Error(`lua: ${file} includes "${name}", but ${path} does not exist`);
    seen.add(name);
    const flat = flatten(readFileSync(path, 'utf8'), `includes/${name}.lua`, dir, [...stack, name], seen, order);
    order.push(name);
    return flat;
  });
}

/**
 * Fails on a `[[` inside a `[[ ... ]]` comment or string. Redis built from its own sources (the
 * official images among them) compiles Lua 5.1 with LUA_COMPAT_LSTR 1, which refuses such
 * nesting ("nesting of [[...]] is deprecated"); Debian's Redis accepts it, so only this check
 * keeps a stray `[[` in a comment from breaking laurel on the other builds.
 */
export function checkLongBrackets(lua: string, file: string): void {
  let i = 0;
  const line = (at: number) => lua.slice(0, at).split('\n').length;
  while (i < lua.length) {
    const c = lua[i];
    if (c === '\'' || c === '"') {
      // A quoted string: up to the same quote, past escapes (a newline ends it in Lua too).
      for (i++; i < lua.length && lua[i] !== c && lua[i] !== '\n'; i++) if (lua[i] === '\\') i++;
      i++;
    } else if (lua.startsWith('--', i) && !lua.startsWith('--[[', i)) {
      i = lua.indexOf('\n', i);
      if (i < 0) return;
    } else if (lua.startsWith('[[', i) || lua.startsWith('--[[', i)) {
      const open = lua.indexOf('[[', i) + 2;
      const close = lua.indexOf(']]', open);
      const end = close < 0 ? lua.length : close;
      const nested = lua.indexOf('[[', open);
      if (nested >= 0 && nested < end) {
        throw new Error(`lua: ${file} (includes flattened) line ${line(nested)}: "[[" inside a [[ ... ]] comment or string (Lua 5.1 as Redis builds it refuses the nesting)`);
      }
      i = end + 2;
    } else {
      i++;
    }
  }
}

/**
 * Lua source with its `--- @include` lines flattened, as loadScripts flattens a script's: for a
 * harness that runs helpers of lua/includes/ alone (the tests that hold the TypeScript and the Lua
 * of one rule together).
 */
export function withIncludes(source: string, dir = LUA_DIR): string {
  return flatten(source, '<source>', dir, [], new Set(), []);
}

export function loadScripts(dir = LUA_DIR): Script[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((file) => {
      const m = /^([A-Za-z][A-Za-z0-9]*)-(\d+|n)\.lua$/.exec(file);
      if (!m) throw new Error(`lua: ${file} must be named <name>-<numberOfKeys>.lua (or <name>-n.lua)`);
      const source = readFileSync(join(dir, file), 'utf8');
      const includes: string[] = [];
      const lua = flatten(source, file, dir, [], new Set(), includes);
      checkLongBrackets(lua, file);
      return {
        name: m[1], numberOfKeys: m[2] === 'n' ? null : Number(m[2]), lua, sha: createHash('sha1').update(lua).digest('hex'),
        body: source.replace(INCLUDE, ''), includes,
      };
    });
}

/**
 * The scripts of the event path run as Redis functions (FCALL): a script's `local function`s are
 * created anew on every EVALSHA, a library's helpers once, when it loads (docs/performance.md).
 * The rest stay scripts.
 */
const FUNCTION_SCRIPTS = new Set(['recordEvent', 'recordEventPlan', 'recordEventRun', 'leaderboardRank', 'streakRank', 'leagueJoin', 'leagueKeep']);

/**
 * One library holding those scripts: every helper they include, once, at the library's level, and
 * each script's body as a function of (KEYS, ARGV). Its name and its functions' carry a hash of
 * the code, so installations of other laurel versions on the same Redis do not collide.
 */
export function functionLibrary(scripts: Script[], dir = LUA_DIR): { code: string; names: Map<string, string> } {
  const chosen = scripts.filter((x) => FUNCTION_SCRIPTS.has(x.name));
  const helpers: string[] = [];
  for (const x of chosen) for (const name of x.includes) if (!helpers.includes(name)) helpers.push(name);
  const helperCode = helpers.map((name) => readFileSync(join(dir, 'includes', `${name}.lua`), 'utf8').replace(INCLUDE, '')).join('\n');
  const hash = createHash('sha1').update(helperCode + chosen.map((x) => x.body).join('\n')).digest('hex').slice(0, 12);
  const names = new Map(chosen.map((x) => [x.name, `laurel_${x.name}_${hash}`]));
  const code = [
    `#!lua name=laurel_${hash}`,
    `local ${LIBRARY_LOCALS.map(([, local]) => local).join(', ')}`,
    libraryLocals(helperCode, 'the helpers'),
    // Each body a library-level local, `<name>Body`, so that another function may run it too
    // (lua/recordEventRun-4.lua runs the event functions' bodies).
    `local ${chosen.map((x) => `${x.name}Body`).join(', ')}`,
    ...chosen.map((x) => `${x.name}Body = function(KEYS, ARGV)\n${LIBRARY_LOCALS_SET}\n${libraryLocals(x.body, x.name)}\nend\n` +
      `redis.register_function('${names.get(x.name)}', ${x.name}Body)`),
  ].join('\n');
  return { code, names };
}

/**
 * The standard functions the library calls, kept in library-level locals. In a Redis 7 function
 * every global is read through an empty table whose metatable points at the real globals, much
 * dearer than the upvalue read of a local (docs/performance.md). The globals are not readable while the library
 * loads (only `redis.register_function` is), so the first call of any of its functions sets them.
 */
const LIBRARY_LOCALS: [string, string][] = [
  ['redis.call', 'rcall'], ['redis.pcall', 'rpcall'], ['string.match', 'smatch'], ['string.sub', 'ssub'], ['string.find', 'sfind'], ['string.byte', 'sbyte'],
  ['string.format', 'sformat'], ['string.gmatch', 'sgmatch'], ['table.concat', 'tconcat'], ['table.insert', 'tinsert'],
  ['cjson.decode', 'jdecode'], ['cjson.encode', 'jencode'], ['math.floor', 'mfloor'], ['math.min', 'mmin'],
  ['math.max', 'mmax'], ['tonumber', 'tonum'], ['tostring', 'tostr'], ['ipairs', 'lipairs'], ['pairs', 'lpairs'],
  ['unpack', 'lunpack'], ['type', 'ltype'],
];

const LIBRARY_LOCALS_SET = `if not rcall then ${LIBRARY_LOCALS.map(([, local]) => local).join(', ')} = ` +
  `${LIBRARY_LOCALS.map(([global]) => global).join(', ')} end`;

/**
 * Calls of the standard functions, rewritten to the library's locals. Fails when the code declares
 * a variable named like one of the bare globals (a rewritten call would then reach the global, not
 * the variable), or already uses one of the locals' names.
 */
function libraryLocals(code: string, what: string): string {
  for (const [global, local] of LIBRARY_LOCALS) {
    if (new RegExp(`\\b${local}\\b`).test(code)) throw new Error(`lua: ${what} use the name "${local}", which the function library keeps for ${global}`);
    if (global.includes('.')) continue;
    const declared = new RegExp(`\\blocal\\b[^=\\n]*\\b${global}\\b|\\bfunction\\b[^(\\n]*\\([^)]*\\b${global}\\b|\\bfor\\b[^\\n]*\\b${global}\\b[^\\n]*\\bin\\b`);
    if (declared.test(code)) throw new Error(`lua: ${what} declare a variable "${global}", which the function library reads as the global`);
  }
  let out = code;
  for (const [global, local] of LIBRARY_LOCALS) {
    out = out.replace(new RegExp(`(?<![\\w.:])${global.replace('.', '\\.')}(?=\\s*\\()`, 'g'), local);
  }
  return out;
}

type Args = (string | number | Buffer)[];

/**
 * Each script's command is typed, and called, by its codec (src/redis/scripts/<name>.ts): its
 * keys, its arguments' encoding, its answer and its codes, in one file.
 */

/** What every FcallCommand hands ioredis's constructor: nothing made per command. */
const NO_ARGS: Args = [];
const FCALL_OPTIONS = { replyEncoding: 'utf8' } as const;

/**
 * FCALL with `args` as given: the function's name, the number of keys, then the keys and
 * arguments. ioredis's own commands copy their arguments with Array.prototype.flat, slow in Node
 * 20 for every event's dozen; these are a flat list already, and the command keeps that very
 * array. Nothing is made here per command, not even an empty array or the options object, so
 * that nothing of it survives a young-generation collection (docs/performance.md). Everything else is ioredis's: the RESP it writes, the key
 * slot a Cluster routes by, the reply.
 */
class FcallCommand extends Command {
  constructor(args: Args) {
    super('fcall', NO_ARGS, FCALL_OPTIONS);
    this.args = args;
    // Numbers to strings, Buffers noted (what the constructor does for the arguments it is given).
    this.stringifyArguments();
  }
}

/** Loads the function library into every primary (again: REPLACE). */
async function loadLibrary(client: Redis | Cluster, code: string): Promise<void> {
  for (const node of primaries(client)) await node.call('FUNCTION', 'LOAD', 'REPLACE', code);
}

/**
 * Defines every script as a method of the client: the event path's as FCALL of the function
 * library (loaded again, and the call repeated, when a Redis that restarted without it answers
 * "Function not found"), the others as ioredis scripts (EVALSHA, EVAL on NOSCRIPT).
 */
export function defineScripts(client: Redis | Cluster, scripts: Script[]): void {
  const library = functionLibrary(scripts);
  for (const s of scripts) {
    const fn = library.names.get(s.name);
    if (fn === undefined) {
      // Without numberOfKeys, ioredis takes the call's first argument for it.
      client.defineCommand(s.name, s.numberOfKeys === null ? { lua: s.lua } : { lua: s.lua, numberOfKeys: s.numberOfKeys });
      continue;
    }
    if (s.numberOfKeys === null) throw new Error(`lua: ${s.name} is a function of the library and must name its number of keys`);
    const numberOfKeys = String(s.numberOfKeys);
    const call = (args: Args): Promise<unknown> => {
      const command = new FcallCommand(args);
      void client.sendCommand(command);
      return command.promise;
    };
    (client as unknown as Record<string, unknown>)[s.name] = (...args: Args) => {
      // The rest parameter's own array, completed in place and used for the call (and its retry).
      args.unshift(fn, numberOfKeys);
      return call(args).catch(async (err: unknown) => {
        if (!(err instanceof Error) || !/Function not found/i.test(err.message)) throw err;
        await loadLibrary(client, library.code);
        return call(args);
      });
    };
  }
}

/**
 * Loads every script into every primary (SCRIPT LOAD) and the function library (FUNCTION LOAD), so
 * a syntax error stops start-up and the first requests skip the EVAL round. Returns the number of
 * nodes loaded.
 */
export async function preloadScripts(client: Redis | Cluster, scripts: Script[]): Promise<number> {
  const nodes = primaries(client);
  for (const node of nodes) {
    for (const s of scripts) {
      if (FUNCTION_SCRIPTS.has(s.name)) continue;
      const sha = (await node.script('LOAD', s.lua)) as string;
      if (sha !== s.sha) throw new Error(`lua: ${s.name} loaded as ${sha}, expected ${s.sha}`);
    }
  }
  const library = functionLibrary(scripts);
  if (library.names.size > 0) await loadLibrary(client, library.code);
  return nodes.length;
}

