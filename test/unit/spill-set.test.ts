/**
 * A set of strings kept in files while it is built (src/lib/spill-set.ts), on the machine's own
 * temporary directory: each string read back once, in the group of its hash's low bits, whether
 * the groups are fewer than the files, as many, or more; strings holding line breaks and
 * backslashes come back as they went in; the files gone after `close`, and those of a process that
 * no longer runs once another set is opened.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SpillSet } from '../../src/lib/spill-set.js';
import { fnv1a } from '../../src/redis/keys.js';

const hash = (s: string): number => fnv1a(s, 0x811c9dc5);

// A temporary directory of this file's own (TMPDIR, read by os.tmpdir), so the files other test
// files' snapshots spill at the same time are not counted here.
const outer = process.env.TMPDIR;
const own = mkdtempSync(join(tmpdir(), 'spill-set-test-'));
process.env.TMPDIR = own;
afterAll(() => {
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  rmSync(own, { recursive: true, force: true });
});
const spills = (): string[] => readdirSync(own).filter((name) => name.startsWith('laurel-spill-'));

/** 5,000 distinct strings, some escaped in the files, each added twice or three times over several adds. */
const odd = ['a\nb', '\\', '\\n', 'x\\\ny', '', ' ', 'ü-ß', '\n'];
const strings = [...odd, ...Array.from({ length: 5000 - odd.length }, (_, i) => `user-${i}`)];

async function filled(parts: number): Promise<SpillSet> {
  const set = await SpillSet.open(parts, hash);
  await set.add(strings.slice(0, 3000));
  await set.add(strings);
  await set.add(strings.filter((_, i) => i % 3 === 0));
  return set;
}

describe('a spill set', () => {
  it.each([[1], [8], [16], [64]])('reads each string once in the group of its hash, by %i groups of 16 files', async (groups) => {
    const set = await filled(16);
    try {
      expect(await set.size()).toBe(strings.length);
      const seen = new Map<string, number>();
      for await (const { group, members } of set.grouped(groups)) {
        expect(members.length).toBeGreaterThan(0);
        for (const s of members) {
          expect(hash(s) & (groups - 1)).toBe(group);
          expect(seen.has(s)).toBe(false);
          seen.set(s, group);
        }
      }
      expect([...seen.keys()].sort()).toEqual([...strings].sort());
      // Read again after the files were rewritten without their repeats: the same.
      expect(await set.size()).toBe(strings.length);
      let again = 0;
      for await (const { members } of set.grouped(groups)) again += members.length;
      expect(again).toBe(strings.length);
    } finally {
      await set.close();
    }
  });

  it('keeps what outgrows its buffers in its files, each string once', async () => {
    const many = Array.from({ length: 40_000 }, (_, i) => `participant-${i}`);
    const set = await SpillSet.open(2, hash);
    try {
      await set.add(many);
      await set.add(many.slice(10_000));
      // Appended to the files as it came (about 250 kB a file), not held until read.
      expect(readdirSync(join(own, spills()[0])).length).toBe(2);
      expect(await set.size()).toBe(many.length);
      const seen: string[] = [];
      for await (const { members } of set.grouped(4)) seen.push(...members);
      expect(seen.sort()).toEqual([...many].sort());
    } finally {
      await set.close();
    }
  });

  it('counts what was added after it was read', async () => {
    const set = await filled(4);
    try {
      expect(await set.size()).toBe(strings.length);
      await set.add(['one more', strings[0], 'one more']);
      expect(await set.size()).toBe(strings.length + 1);
    } finally {
      await set.close();
    }
  });

  it('holds nothing when nothing was added, and leaves no file after close', async () => {
    const before = spills();
    const set = await SpillSet.open(8, hash);
    expect(before).toEqual([]);
    expect(spills()).toHaveLength(1);
    expect(await set.size()).toBe(0);
    const groups: number[] = [];
    for await (const { group } of set.grouped(4)) groups.push(group);
    expect(groups).toEqual([]);
    await set.close();
    expect(spills()).toEqual([]);
    const other = await filled(8);
    expect(await other.size()).toBe(strings.length);
    const [dir] = spills();
    expect(readdirSync(join(own, dir)).length).toBeGreaterThan(0);
    await other.close();
    expect(existsSync(join(own, dir))).toBe(false);
  });

  it('removes, as it opens, the files of processes that no longer run, not those of one that does', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const left = [`laurel-spill-${gone}-abc`, `laurel-spill-${process.pid}-def`, 'laurel-spill-other'];
    for (const dir of left) {
      mkdirSync(join(own, dir));
      writeFileSync(join(own, dir, '0'), 'u1\n');
    }
    const set = await SpillSet.open(2, hash);
    try {
      expect(spills().filter((name) => left.includes(name)).sort()).toEqual(left.slice(1).sort());
    } finally {
      await set.close();
      for (const dir of left) rmSync(join(own, dir), { recursive: true, force: true });
    }
  });

  it('refuses parts or groups that are not a power of two', async () => {
    await expect(SpillSet.open(12, hash)).rejects.toThrow(/power of two/);
    const set = await SpillSet.open(2, hash);
    try {
      await expect(set.grouped(3).next()).rejects.toThrow(/power of two/);
    } finally {
      await set.close();
    }
  });
});
