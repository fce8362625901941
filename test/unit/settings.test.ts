/**
 * Settings read from the environment: LAUREL_RATE_LIMIT's and LAUREL_USER_KEY_RATE_LIMIT's forms, and the start-up error that names
 * the variable for a value it cannot take.
 */
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/lib/settings.js';

const rateLimit = (value: string | undefined) => loadSettings({ LAUREL_RATE_LIMIT: value }).rateLimit;

describe('LAUREL_RATE_LIMIT', () => {
  it('is no limit when unset or empty', () => {
    expect(rateLimit(undefined)).toBeNull();
    expect(rateLimit('')).toBeNull();
    expect(rateLimit('  ')).toBeNull();
  });

  it('takes <requests per second>[:<burst>], the burst the rate rounded up by default', () => {
    expect(rateLimit('100:200')).toEqual({ perSecond: 100, burst: 200 });
    expect(rateLimit('100')).toEqual({ perSecond: 100, burst: 100 });
    expect(rateLimit(' 5:1 ')).toEqual({ perSecond: 5, burst: 1 });
    expect(rateLimit('0.5')).toEqual({ perSecond: 0.5, burst: 1 });
    expect(rateLimit('2.5:10')).toEqual({ perSecond: 2.5, burst: 10 });
    expect(rateLimit('1000000:1000000')).toEqual({ perSecond: 1_000_000, burst: 1_000_000 });
  });

  it('refuses anything else at start-up, naming the variable and the form', () => {
    for (const bad of ['fast', '0', '0:5', '-1', '1:0', '1:2.5', '1:', ':5', '1:2:3', '1e3', '0x10', '1000001', '5:1000001', '5,10']) {
      expect(() => rateLimit(bad), bad).toThrow(SettingsError);
      expect(() => rateLimit(bad), bad).toThrow(/^LAUREL_RATE_LIMIT must be <requests per second>\[:<burst>\] \(for example 100:200 or 0\.5\)/);
    }
  });
});

describe('LAUREL_USER_KEY_RATE_LIMIT', () => {
  const userKeyLimit = (env: Record<string, string>) => loadSettings(env).userKeyRateLimit;

  it('is 20 a second, 200 at once, when neither it nor LAUREL_RATE_LIMIT is set', () => {
    expect(userKeyLimit({})).toEqual({ perSecond: 20, burst: 200 });
    expect(userKeyLimit({ LAUREL_USER_KEY_RATE_LIMIT: ' ' })).toEqual({ perSecond: 20, burst: 200 });
  });

  it('is LAUREL_RATE_LIMIT\'s when only that is set, its own when set, none when off', () => {
    expect(userKeyLimit({ LAUREL_RATE_LIMIT: '5:10' })).toEqual({ perSecond: 5, burst: 10 });
    expect(userKeyLimit({ LAUREL_RATE_LIMIT: '5:10', LAUREL_USER_KEY_RATE_LIMIT: '2:3' })).toEqual({ perSecond: 2, burst: 3 });
    expect(userKeyLimit({ LAUREL_USER_KEY_RATE_LIMIT: '0.5' })).toEqual({ perSecond: 0.5, burst: 1 });
    expect(userKeyLimit({ LAUREL_RATE_LIMIT: '5:10', LAUREL_USER_KEY_RATE_LIMIT: 'off' })).toBeNull();
    expect(loadSettings({ LAUREL_USER_KEY_RATE_LIMIT: 'off' }).rateLimit).toBeNull();
  });

  it('refuses anything else at start-up, naming the variable, the form and off', () => {
    for (const bad of ['none', '0', 'OFF', '1:0', '1e3']) {
      expect(() => userKeyLimit({ LAUREL_USER_KEY_RATE_LIMIT: bad }), bad).toThrow(SettingsError);
      expect(() => userKeyLimit({ LAUREL_USER_KEY_RATE_LIMIT: bad }), bad).toThrow(/^LAUREL_USER_KEY_RATE_LIMIT must be <requests per second>\[:<burst>\].*; or off for no limit$/);
    }
  });
});
