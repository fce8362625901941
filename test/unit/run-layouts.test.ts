/**
 * Which rows a restore takes of a run kept by buckets of users (src/redis/run-members.ts
 * layoutChoice): a run's one way, whole; of two ways (a snapshot changed the way and did not
 * finish), the one the latest snapshot that finished, or an earlier one, wrote; the run's counts
 * (`:s`, `:f`) and other runs whatever the way.
 */
import { describe, expect, it } from 'vitest';
import { Keys } from '../../src/redis/keys.js';
import { layoutChoice, type KeptRow } from '../../src/redis/run-members.js';

const keys = new Keys('laurel', 4);
const run = keys.leaderboard('_', 'board-1', '2026-01-01', '');
const other = keys.leaderboard('_', 'board-2', '2026-01-01', '');
const base = run.members.slice(0, -1);
const bucketRows = (count: number, snapshot: number): KeptRow[] => Array.from({ length: count }, (_, i) => ({ key: `${base}#m${count}.${i}`, snapshot }));
const wholeRows = (snapshot: number): KeptRow[] => [{ key: run.ranking, snapshot }, { key: run.members, snapshot }];
/** Every row a restore may meet of the two runs. */
const rows = [
  ...bucketRows(4, 0), ...bucketRows(8, 0), run.ranking, run.members, run.sequences, run.history('a:b'), run.awards('u1'), run.stats, run.falls,
  other.ranking, other.members, other.history('u1'),
].map((r) => (typeof r === 'string' ? r : r.key));
/** The rows taken, by their names in the run's slot (`other ...` for the other run's). */
const taken = (choice: (key: string) => boolean) => rows.filter(choice).map((k) => `${k.startsWith(base) ? '' : 'other '}${k.slice(k.indexOf('}:') + 2)}`);

describe('a run kept by buckets, restored', () => {
  it('takes every row of a run kept one way', () => {
    expect(rows.filter(layoutChoice(keys, bucketRows(4, 7), [], 7))).toEqual(rows);
    expect(rows.filter(layoutChoice(keys, [], wholeRows(7), 7))).toEqual(rows);
  });

  it('takes the whole run where a snapshot that did not finish began its buckets', () => {
    expect(taken(layoutChoice(keys, bucketRows(4, 8), wholeRows(5), 7))).toEqual(['r', 'm', 'q', 'h:a%3Ab', 'a:u1', 's', 'f', 'other r', 'other m', 'other h:u1']);
  });

  it('takes the buckets where a snapshot that did not finish began to keep the run whole', () => {
    expect(taken(layoutChoice(keys, bucketRows(4, 6), wholeRows(8), 7))).toEqual(['#m4.0', '#m4.1', '#m4.2', '#m4.3', 's', 'f', 'other r', 'other m', 'other h:u1']);
  });

  it('takes the bucket count the latest finished snapshot wrote, not a new one begun after it', () => {
    expect(taken(layoutChoice(keys, [...bucketRows(4, 7), ...bucketRows(8, 9)], [], 7)).filter((k) => k.startsWith('#'))).toEqual(['#m4.0', '#m4.1', '#m4.2', '#m4.3']);
    // Both written by finished snapshots cannot happen (the later one drops the other's rows): the later is taken.
    expect(taken(layoutChoice(keys, [...bucketRows(4, 5), ...bucketRows(8, 7)], [], 7)).filter((k) => k.startsWith('#'))).toHaveLength(8);
  });
});
