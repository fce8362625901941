/**
 * The scripts' codes (src/redis/codes.ts): each value means one thing, and every negative code a
 * Lua script or helper answers is one of them, so the TypeScript that reads an answer and the Lua
 * that writes it agree; every refusal is answered by exactly one error
 * (src/engine/script-errors.ts), whose names the compiler requires.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFUSAL_ERRORS, refused } from '../../src/engine/script-errors.js';
import { fail, HttpError, type ErrorCode } from '../../src/lib/errors.js';
import { REFUSALS, ScriptCode, type Refusal } from '../../src/redis/codes.js';
import { LUA_DIR } from '../../src/redis/scripts.js';

function luaFiles(): [string, string][] {
  const top = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')).map((f) => join(LUA_DIR, f));
  const includes = readdirSync(join(LUA_DIR, 'includes')).map((f) => join(LUA_DIR, 'includes', f));
  return [...top, ...includes].map((path) => [path, readFileSync(path, 'utf8')]);
}

/** The negative numbers a Lua source returns: `return -N` and `return {-N, ...}`. */
function negativeReturns(source: string): number[] {
  return [...source.matchAll(/\breturn\s+\{?\s*(-\d+)\b/g)].map((m) => Number(m[1]));
}

describe('script codes', () => {
  it('gives every code a value of its own', () => {
    const values = Object.values(ScriptCode);
    expect(new Set(values).size).toBe(values.length);
  });

  it('knows every negative code a script answers', () => {
    const known = new Set<number>(Object.values(ScriptCode));
    const answered = new Set<number>();
    for (const [path, source] of luaFiles()) {
      for (const code of negativeReturns(source)) {
        expect(known.has(code), `${path} answers ${code}, which src/redis/codes.ts does not name`).toBe(true);
        answered.add(code);
      }
    }
    for (const [name, code] of Object.entries(ScriptCode)) {
      if (code < 0) expect(answered.has(code), `no script answers ${name} (${code})`).toBe(true);
    }
  });
});

/** The error each refusal was answered with before the map (the callers' own translations). */
const ANSWERED: Record<Refusal, [ErrorCode, status: number]> = {
  [ScriptCode.SUBSCRIBE_WITHOUT_EMAIL]: ['subscribe_without_email', 422],
  [ScriptCode.EXISTS]: ['user_exists', 422],
  [ScriptCode.NOT_FOUND]: ['user_not_found', 404],
  [ScriptCode.FILTERED_OUT]: ['unprocessable', 422],
  [ScriptCode.OUT_OF_POINTS]: ['out_of_points', 422],
  [ScriptCode.TOTAL_OUT_OF_RANGE]: ['unprocessable', 422],
  [ScriptCode.POINTS_OUT_OF_RANGE]: ['points_out_of_range', 422],
};

/**
 * Never run: the build (`npm run build`, tsc over test/) fails when a refusal or an error can be
 * built without the names its message needs, or from a code that is no refusal.
 */
export function typedNames(): void {
  // @ts-expect-error: user_not_found names the user
  fail('user_not_found');
  // @ts-expect-error: rate_limited names the limit and the seconds
  fail('rate_limited', '10');
  // @ts-expect-error: EXISTS names the user
  refused(ScriptCode.EXISTS);
  // @ts-expect-error: FILTERED_OUT names the user and the achievement
  refused(ScriptCode.FILTERED_OUT, 'u');
  // @ts-expect-error: TIME_DUE is no refusal (the api accrues, then sends again)
  refused(ScriptCode.TIME_DUE);
}

describe('script refusals', () => {
  it('lists each refusal once, every one a code of the list', () => {
    expect(new Set(REFUSALS).size).toBe(REFUSALS.length);
    const known = new Set<number>(Object.values(ScriptCode));
    for (const code of REFUSALS) expect(known.has(code), `${code}`).toBe(true);
  });

  it('maps every refusal code to exactly one error, and nothing else', () => {
    const mapped = Object.keys(REFUSAL_ERRORS).map(Number).sort((a, b) => a - b);
    expect(mapped).toEqual([...REFUSALS].sort((a, b) => a - b));
  });

  it('answers each refusal with its error, naming what it was given', () => {
    for (const code of REFUSALS) {
      const names = ['user-7', 'key-9'].slice(0, REFUSAL_ERRORS[code].length);
      const err = (refused as (c: Refusal, ...n: string[]) => HttpError)(code, ...names);
      const [errorCode, status] = ANSWERED[code];
      expect(err, `${code}`).toBeInstanceOf(HttpError);
      expect([err.code, err.status], `${code}`).toEqual([errorCode, status]);
      for (const name of names) expect(err.message, `${code}`).toContain(name);
    }
    expect(refused(ScriptCode.FILTERED_OUT, 'u1', 'first-steps').message)
      .toBe('User "u1" does not have the attribute values achievement "first-steps" requires');
  });
});
