/** A user's breakdown group on a board, as every reader and writer works it out. */
import { describe, expect, it } from 'vitest';
import { breakdownGroup, groupName } from '../../src/domain/leaderboards/runs.js';
import type { Leaderboard } from '../../src/model/entities.js';
import { emptyRaw, Snapshot } from '../../src/model/snapshot.js';

const attribute = (id: string, key: string) => JSON.stringify({ id, key, name: key, type: 'user', created: '', updated: '' });
const raw = emptyRaw();
raw.attributes = { a1: attribute('a1', 'region'), a2: attribute('a2', 'plan') };
const snapshot = new Snapshot(1, raw);
const board = (breakdownAttributes: string[]) => ({ breakdownAttributes }) as Leaderboard;

describe('breakdown groups', () => {
  it('gives the values in the board order, [] without breakdown', () => {
    const values: Record<string, string> = { region: 'eu', plan: 'pro' };
    expect(breakdownGroup(board(['a2', 'a1']), snapshot, (k) => values[k])).toEqual(['pro', 'eu']);
    expect(breakdownGroup(board([]), snapshot, () => undefined)).toEqual([]);
  });

  it('puts a user with a missing or empty value in no group', () => {
    for (const missing of [undefined, null, '']) {
      expect(breakdownGroup(board(['a1', 'a2']), snapshot, (k) => (k === 'plan' ? missing : 'eu')), String(missing)).toBeNull();
    }
  });

  it('names a group by its values joined with U+0000', () => {
    expect(groupName(['eu', 'pro'])).toBe('eu\u0000pro');
    expect(groupName([])).toBe('');
  });
});
