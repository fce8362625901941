/**
 * The scripts' codes (src/redis/codes.ts): each value means one thing, and every negative code a
 * Lua script or helper answers is one of them, so the TypeScript that reads an answer and the Lua
 * that writes it agree.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptCode } from '../../src/redis/codes.js';
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
