/**
 * Which api processes a configuration write waits for (src/config/read-your-writes.ts): the live ones
 * whose recorded version is behind, never a stopped, silent or unrecorded one.
 */
import { describe, expect, it } from 'vitest';
import { followersBehind } from '../../src/config/read-your-writes.js';

const NOW = 1_000_000;
const ALIVE = 4000;

describe('followersBehind', () => {
  it('waits for the live processes behind the version only', () => {
    const beats = { a: String(NOW - 500), b: String(NOW - 500), c: String(NOW - 10_000), d: `stopped:${NOW - 100}`, e: String(NOW) };
    const versions = { a: '7', b: '6', c: '1', d: '1', f: '1' };
    // a has it, b is behind, c is silent, d stopped, e records nothing (an older laurel), f beats
    // no more.
    expect(followersBehind(beats, versions, 7, NOW, ALIVE)).toEqual(['b']);
    expect(followersBehind(beats, versions, 6, NOW, ALIVE)).toEqual([]);
    expect(followersBehind(beats, versions, 8, NOW, ALIVE)).toEqual(['a', 'b']);
  });

  it('counts a heartbeat as live up to the bound', () => {
    expect(followersBehind({ a: String(NOW - ALIVE) }, { a: '1' }, 2, NOW, ALIVE)).toEqual(['a']);
    expect(followersBehind({ a: String(NOW - ALIVE - 1) }, { a: '1' }, 2, NOW, ALIVE)).toEqual([]);
  });
});
