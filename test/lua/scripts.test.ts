/**
 * The script loader (names, includes) and the phase-1 script called directly against real Redis
 * with a fixed clock: outcomes that change nothing must write nothing.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineScripts, functionLibrary, loadScripts, preloadScripts } from '../../src/redis/scripts.js';
import { Keys } from '../../src/redis/keys.js';
import { loadSettings } from '../../src/lib/settings.js';
import { deletePrefix } from '../support/server.js';
import { ScriptCode } from '../../src/redis/codes.js';
import { CLOCK_FIELD, clockArg, parseClock, userTime } from '../../src/domain/clock.js';

/** The directories luaDir made, removed after the file. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function luaDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'laurel-lua-'));
  made.push(dir);
  mkdirSync(join(dir, 'includes'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return dir;
}

describe('script loader', () => {
  it('reads the key count from the name and flattens each include once', () => {
    const dir = luaDir({
      'both-2.lua': '--- @include "a"\n--- @include "b"\nreturn a() + b()',
      'includes/a.lua': 'local function a() return 1 end',
      'includes/b.lua': '--- @include "a"\nlocal function b() return a() end',
    });
    const [s] = loadScripts(dir);
    expect(s.name).toBe('both');
    expect(s.numberOfKeys).toBe(2);
    expect(s.lua.match(/local function a\(\)/g)).toHaveLength(1);
    expect(s.lua).not.toContain('@include');
  });

  it('fails loudly on a missing include, a circular include and a bad name', () => {
    expect(() => loadScripts(luaDir({ 'x-1.lua': '--- @include "nope"' }))).toThrow(/includes "nope"/);
    expect(() => loadScripts(luaDir({
      'x-1.lua': '--- @include "a"', 'includes/a.lua': '--- @include "b"', 'includes/b.lua': '--- @include "a"',
    }))).toThrow(/circular include a -> b -> a/);
    expect(() => loadScripts(luaDir({ 'noKeys.lua': 'return 1' }))).toThrow(/<name>-<numberOfKeys>\.lua/);
  });

  it('refuses a [[ nested in a long comment or string, which Redis built from its sources cannot compile', () => {
    expect(() => loadScripts(luaDir({ 'x-1.lua': '--[[\n  JSON: [[a, b], ...]\n]]\nreturn 1' }))).toThrow(/x-1\.lua \(includes flattened\) line 2: "\[\["/);
    expect(() => loadScripts(luaDir({ 'x-1.lua': 'local s = [[one [[two]]\nreturn s' }))).toThrow(/line 1/);
    // In an include too, as it was in laurel (lua/includes/streak.lua).
    expect(() => loadScripts(luaDir({ 'x-1.lua': '--- @include "a"\nreturn 1', 'includes/a.lua': '--[[ [[ ]]' }))).toThrow(/x-1\.lua/);
    // Inside quotes and line comments, [[ is an ordinary pair of characters.
    const [s] = loadScripts(luaDir({ 'x-1.lua': "--[[ head ]]\n-- a [[ line comment\nlocal a = '[[\"' .. \"]]\" .. '\\'[['\nreturn a" }));
    expect(s.name).toBe('x');
  });

  it('calls the standard functions through library locals, and refuses code that would shadow them', () => {
    const { code } = functionLibrary(loadScripts());
    const setter = /^if not rcall then .* end$/m;
    expect(code).toMatch(setter);
    // Outside the line that sets them, no call reads the globals any more.
    expect(code.replace(setter, '')).not.toMatch(/(?<![\w.:])(redis\.call|string\.sub|string\.match|tonumber|unpack)\s*\(/);
    expect(code).toMatch(/\brcall\('XADD'/);
    const library = (body: string) => functionLibrary(loadScripts(luaDir({ 'recordEvent-1.lua': body })), '/nonexistent');
    expect(library('return redis.call("GET", KEYS[1])').code).toContain('return rcall("GET", KEYS[1])');
    expect(() => library('local tonumber = 1\nreturn tonumber("2")')).toThrow(/declare a variable "tonumber"/);
    expect(() => library('for _, type in ipairs(ARGV) do end')).toThrow(/declare a variable "type"/);
    expect(() => library('local rcall = 1')).toThrow(/use the name "rcall"/);
  });

  it('loads every script of lua/ with a header naming its KEYS and ARGV', () => {
    const scripts = loadScripts();
    expect(scripts.map((s) => s.name)).toEqual(expect.arrayContaining(['recordEvent', 'upsertUser', 'configPut']));
    for (const s of scripts) {
      expect(s.lua.startsWith('--[['), s.name).toBe(true);
      for (let i = 1; i <= (s.numberOfKeys ?? 0); i++) expect(s.lua, `${s.name} KEYS[${i}]`).toContain(`KEYS[${i}]`);
    }
  });
});

/**
 * Inside a describe: a client with the scripts defined and loaded, under a key prefix of its own,
 * deleted afterwards.
 */
function directScripts() {
  const settings = loadSettings({ ...process.env, LAUREL_PREFIX: `t${randomBytes(5).toString('hex')}` });
  const keys = new Keys(settings.prefix, 16);
  const redis = new Redis(settings.redisUrl);
  beforeAll(async () => {
    const scripts = loadScripts();
    defineScripts(redis, scripts);
    await preloadScripts(redis, scripts);
  });
  afterAll(async () => {
    await deletePrefix(settings, settings.prefix);
    redis.disconnect();
  });
  return { settings, keys, redis };
}

describe('recordEvent, called directly', () => {
  const { settings, keys, redis } = directScripts();
  const u = keys.forUser('_', 'direct');
  const metric = 'm-1';

  const call = async (o: { tz?: string; setsTz?: boolean; idem?: string; needsEmail?: string; pairs?: string[]; value?: string; at?: number }) => {
    const at = o.at ?? Date.UTC(2026, 0, 1, 12);
    // The user's clock as the api assumes it: the stored one (src/domain/clock.ts).
    const clock = clockArg(userTime(o.tz ?? '', parseClock(await redis.hget(u.user, CLOCK_FIELD)), at));
    return redis.recordEvent(
      u.user, keys.userMetric(u, metric), u.users, u.log,
      `${(o.setsTz ? '1' : '0') + (o.needsEmail ?? '0')}00|m:${metric}|${o.value ?? '1'}|d:2026-01-01|${o.tz ?? ''}|${at}|${clock}|`,
      o.idem ? `e-${String(at).padStart(34, '0')}i:${o.idem}` : '', new Date(at).toISOString() + 'direct', `{"e":"e-${at}"}`,
      ...(o.pairs ?? []),
    );
  };
  const keyCount = async () => (await redis.keys(`${settings.prefix}:*`)).length;

  it('writes nothing when subscribeToEmails needs an email', async () => {
    expect(await call({ needsEmail: '1' })).toEqual([ScriptCode.SUBSCRIBE_WITHOUT_EMAIL]);
    expect(await keyCount()).toBe(0);
  });

  it('processes, then reports a time zone mismatch without writing', async () => {
    expect(await call({ tz: 'Asia/Tokyo', setsTz: true, pairs: ['tz', 'Asia/Tokyo'], value: '2.5' })).toMatch(/^2\.5\n1\n\n\n0\n\n\n\d+-\d+\n$/);
    const before = await redis.xlen(u.log);
    expect(await call({ tz: '' })).toEqual([ScriptCode.TZ_MISMATCH, 'Asia/Tokyo']);
    expect(await redis.hget(u.user, `m:${metric}`)).toBe('2.5');
    expect(await redis.xlen(u.log)).toBe(before);
  });

  it('appends one log entry per processed event and none per replay', async () => {
    const before = await redis.xlen(u.log);
    expect(await call({ tz: 'Asia/Tokyo', idem: 'k1', at: 1 })).toMatch(/^3\.5\n0\n\n\n0\n\n\n\d+-\d+\n$/);
    expect(await call({ tz: 'Asia/Tokyo', idem: 'k1', at: 2 })).toEqual([2, `e-${'1'.padStart(34, '0')}`, '3.5', '']);
    expect(await redis.xlen(u.log)).toBe(before + 1);
    const [[, fields]] = await redis.xrevrange(u.log, '+', '-', 'COUNT', 1);
    expect(fields).toEqual(['event', '{"e":"e-1"}']);
  });

  it('runs the event script as a Redis function, loading the library again when Redis lost it', async () => {
    const { code, names } = functionLibrary(loadScripts());
    expect(names.get('recordEvent')).toMatch(/^laurel_recordEvent_[0-9a-f]{12}$/);
    const library = /^#!lua name=(\S+)/.exec(code)![1];
    // As after a restart without persistence: the library is gone; the next call loads it and goes on.
    await redis.call('FUNCTION', 'DELETE', library);
    expect(await call({ tz: 'Asia/Tokyo', at: 3 })).toMatch(/^4\.5\n0\n\n\n0\n\n\n\d+-\d+\n$/);
    const listed = await redis.call('FUNCTION', 'LIST', 'LIBRARYNAME', library) as unknown[];
    expect(listed).toHaveLength(1);
  });
});

describe('recordEventPlan, called directly: the plan by id', () => {
  const { settings, keys, redis } = directScripts();
  const metric = 'm-1';
  // One metric achievement at 5 (hot '5##': its threshold, no streak rule, no points).
  const full = `m:${metric}\n5##\n{"m":[{"id":"a5","cf":"c:a5","v":5}]}`;
  // Unique to this run: another run's library may have been sent the same id with another plan.
  const id = randomBytes(8).toString('hex');

  const call = (user: string, plan: string) => {
    const u = keys.forUser('_', user);
    const at = Date.UTC(2026, 0, 1, 12);
    return redis.recordEventPlan(
      u.user, keys.userMetric(u, metric), u.slot, u.log, ['0010', '5', 'd:2026-01-01', '', at, '_', '', '', '', '', '', clockArg(userTime('', null, at)), '', id].join('|'),
      `${new Date(at).toISOString()}${user}`, `{"e":"e-${user}"}`, '', plan,
    );
  };
  const completed = (answer: unknown) => typeof answer === 'string' ? answer.split('\n')[6] : answer;

  it('answers PLAN_UNKNOWN for an id it was never sent, writing nothing', async () => {
    expect(await call('u1', '')).toEqual([ScriptCode.PLAN_UNKNOWN]);
    expect(await redis.keys(`${settings.prefix}:*`)).toEqual([]);
  });

  it('takes the plan in full, then by its id alone', async () => {
    expect(completed(await call('u1', full))).toBe('a5');
    // By id, right after it was sent. A test server starting in parallel reloads the library (which
    // forgets it): then send it again, as the api does, a few times at most.
    let answer: unknown = [ScriptCode.PLAN_UNKNOWN];
    for (let attempt = 0; attempt < 3 && Array.isArray(answer); attempt++) {
      await call(`u-send-${attempt}`, full);
      answer = await call(`u-ref-${attempt}`, '');
    }
    expect(completed(answer)).toBe('a5');
  });
});

describe('uuidv7', () => {
  it('makes valid version-7 UUIDs that sort in creation order, also within a millisecond', async () => {
    const { uuidv7 } = await import('../../src/domain/ids.js');
    const ids = Array.from({ length: 5000 }, (_, i) => uuidv7(1_700_000_000_000 + Math.floor(i / 1000)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
