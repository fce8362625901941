/**
 * A set of strings too large to hold in memory while it is built (a board run's hundred million
 * user ids: docs/operations.md, "Snapshots"), kept in files of a temporary directory instead:
 * each string goes to one of `parts` files by the low bits of its hash, and the set is read back
 * grouped by the low bits of that same hash, one group of files at a time, each string once.
 * What a reader holds at once is about the set's size divided by the number of groups.
 *
 * The directory is made under the system's temporary directory (`TMPDIR`), named after the process,
 * and removed by `close`; the directories of processes no longer running (a process killed while
 * it read a run) are removed when a set is opened.
 */
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a file's buffer holds before it is appended to the file, in characters. */
const FLUSH_AT = 32_768;

/** One string a line: a line break and the escape character escaped. */
function encode(s: string): string {
  return s.indexOf('\n') < 0 && s.indexOf('\\') < 0 ? s : s.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

function decode(line: string): string {
  return line.indexOf('\\') < 0 ? line : line.replace(/\\(n|\\)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

const DIR = 'laurel-spill-';

/** Whether process `pid` runs (signal 0 checks without sending; EPERM: it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the sets' directories left by processes that no longer run. */
async function sweep(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const dash = name.indexOf('-', DIR.length);
    if (!name.startsWith(DIR) || dash < 0) continue;
    const pid = Number(name.slice(DIR.length, dash));
    if (Number.isInteger(pid) && pid > 0 && !running(pid)) await rm(join(dir, name), { recursive: true, force: true });
  }
}

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
}

export class SpillSet {
  private readonly buffers: string[];
  /** Whether each file holds each of its strings once (after `size`, until the next `add`). */
  private readonly distinct: boolean[];
  private counted: number | null = null;

  private constructor(private readonly dir: string, private readonly parts: number, private readonly hash: (s: string) => number) {
    this.buffers = Array.from({ length: parts }, () => '');
    this.distinct = Array.from({ length: parts }, () => true);
  }

  /** An empty set of `parts` files (a power of two). */
  static async open(parts: number, hash: (s: string) => number): Promise<SpillSet> {
    if (!isPowerOfTwo(parts)) throw new Error(`a spill set's parts must be a power of two, not ${parts}`);
    await sweep(tmpdir());
    return new SpillSet(await mkdtemp(join(tmpdir(), `${DIR}${process.pid}-`)), parts, hash);
  }

  private file(part: number): string {
    return join(this.dir, String(part));
  }

  private async flush(part: number): Promise<void> {
    if (this.buffers[part] === '') return;
    const text = this.buffers[part];
    this.buffers[part] = '';
    await appendFile(this.file(part), text);
  }

  /** Adds strings (a string already in the set is kept once). */
  async add(values: Iterable<string>): Promise<void> {
    this.counted = null;
    for (const s of values) {
      const part = this.hash(s) & (this.parts - 1);
      this.buffers[part] += `${encode(s)}\n`;
      this.distinct[part] = false;
      if (this.buffers[part].length >= FLUSH_AT) await this.flush(part);
    }
  }

  /** The strings of one file, each once (the file rewritten so when it held some twice). */
  private async read(part: number): Promise<string[]> {
    await this.flush(part);
    let text: string;
    try {
      text = await readFile(this.file(part), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const lines = text.split('\n');
    lines.pop();
    if (this.distinct[part]) return lines.map(decode);
    const unique = [...new Set(lines)];
    if (unique.length < lines.length) await writeFile(this.file(part), unique.length === 0 ? '' : `${unique.join('\n')}\n`);
    this.distinct[part] = true;
    return unique.map(decode);
  }

  /** How many distinct strings the set holds (reads every file once, a file at a time). */
  async size(): Promise<number> {
    if (this.counted !== null) return this.counted;
    let n = 0;
    for (let part = 0; part < this.parts; part++) n += (await this.read(part)).length;
    this.counted = n;
    return n;
  }

  /**
   * The set by `groups` (a power of two) groups of the hash's low bits, each string once: for each
   * group in order, its strings by group number. A file's strings are read with those of every
   * file whose part shares the group's bits, so what is held at once is about the set's size
   * divided by the smaller of `groups` and the number of parts.
   */
  async *grouped(groups: number): AsyncGenerator<{ group: number; members: string[] }> {
    if (!isPowerOfTwo(groups)) throw new Error(`a spill set's groups must be a power of two, not ${groups}`);
    const shared = Math.min(groups, this.parts);
    for (let low = 0; low < shared; low++) {
      const byGroup = new Map<number, string[]>();
      for (let part = low; part < this.parts; part += shared) {
        for (const s of await this.read(part)) {
          const group = this.hash(s) & (groups - 1);
          const members = byGroup.get(group);
          if (members === undefined) byGroup.set(group, [s]);
          else members.push(s);
        }
      }
      for (const group of [...byGroup.keys()].sort((a, b) => a - b)) yield { group, members: byGroup.get(group)! };
    }
  }

  /** Removes the files. */
  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
