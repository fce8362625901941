/**
 * The holds and rings the api processes tell the workers the live topics they hold with
 * (src/engine/live/interest.ts), and how long a topic is held after its last socket left
 * (LAUREL_LIVE_LINGER).
 */
import { describe, expect, it } from 'vitest';
import { holderOf, holdOf, parseRing, ringOf, ringsMessage, ringsOf } from '../../src/engine/live/interest.js';
import { loadSettings, SettingsError } from '../../src/lib/settings.js';

describe('live interest', () => {
  it('reads back a hold and a ring, a topic with bars in it too', () => {
    const hold = holdOf('0b6f-api', 'acme|user:a|b');
    expect(holderOf(hold)).toEqual({ holder: '0b6f-api', scoped: 'acme|user:a|b' });
    expect(parseRing(ringOf(true, 12, 1795678380885, hold))).toEqual({ take: true, n: 12, at: 1795678380885, member: hold, holder: '0b6f-api', scoped: 'acme|user:a|b' });
    expect(parseRing(ringOf(false, 13, 1795678380886, hold))).toMatchObject({ take: false, n: 13, at: 1795678380886, scoped: 'acme|user:a|b' });
  });

  it('carries a topic with a line break in a message of rings, and reads a message of lines too', () => {
    // A user id may hold a line break, and what follows it must not read as a ring of its own.
    const hold = holdOf('0b6f-api', '_|user:a\n+9|5|0b6f-api|_|user:fake');
    const rings = [ringOf(true, 1, 5, hold), ringOf(false, 2, 6, holdOf('0b6f-api', '_|user:b'))];
    const read = ringsOf(ringsMessage(rings)).map(parseRing);
    expect(read.map((r) => [r?.take, r?.scoped])).toEqual([[true, '_|user:a\n+9|5|0b6f-api|_|user:fake'], [false, '_|user:b']]);
    expect(ringsOf(`${ringOf(true, 1, 5, holdOf('p', '_|user:a'))}\n${ringOf(true, 2, 5, holdOf('p', '_|user:b'))}`).map((l) => parseRing(l)?.scoped))
      .toEqual(['_|user:a', '_|user:b']);
    for (const bad of ['[', '[1, 2]', '{"a":1}', '["+1|5|p|_|user:a", 3]']) expect(ringsOf(bad).every((l) => typeof l === 'string'), bad).toBe(true);
    expect(ringsOf('[1, 2]')).toEqual([]);
  });

  it('refuses lines of another form', () => {
    for (const line of ['', '_|user:a', '+|5|api|_|user:a', '+x|5|api|_|user:a', '*1|5|api|_|user:a', '+1|api|_|user:a', '+1||api|_|user:a', '+1|5|api', '+1|5||_|user:a', '+1|5|api|', '+0x1|5|api|_|user:a', '+1|1e2|api|_|user:a']) {
      expect(parseRing(line), line).toBeNull();
    }
    expect(holderOf('|_|user:a')).toBeNull();
  });

  it('holds a topic LAUREL_LIVE_LINGER seconds after its last socket left: 120 by default, 0 to 600', () => {
    expect(loadSettings({}).liveLingerS).toBe(120);
    expect(loadSettings({ LAUREL_LIVE_LINGER: '0' }).liveLingerS).toBe(0);
    expect(loadSettings({ LAUREL_LIVE_LINGER: '600' }).liveLingerS).toBe(600);
    for (const bad of ['-1', '601', 'abc', '1.5', ' 5', '0x10', '1e2']) expect(() => loadSettings({ LAUREL_LIVE_LINGER: bad }), bad).toThrow(SettingsError);
  });
});
