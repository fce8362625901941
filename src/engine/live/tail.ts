/**
 * Reading the partitions' event logs as they are appended, for the live publisher: from where it
 * read up to (its positions), on a connection of its own. A single Redis takes one `XREAD BLOCK`
 * over every partition's stream, answered the moment any of them is appended to; a Cluster refuses
 * a read across slots (each partition is a slot of its own), so there every partition is read
 * without blocking, the reads sent together (one write per node), again every POLL_MS while they
 * find nothing.
 */
import { Cluster } from 'ioredis';
import { sentTogether } from '../../redis/coalesce.js';
import type { RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';

/** Entries read per partition per read. */
const COUNT = 500;
/** How long a blocking read waits for an entry (ms): the loop then looks at its lease again. */
const BLOCK_MS = 500;
/** How long an idle Cluster's loop waits between two reads (ms). */
export const POLL_MS = 10;
/**
 * The least time between two reads (ms): under load each read would find a few entries and go
 * again at once, every read naming all 256 streams (Redis looks each up); waiting this long lets a
 * read take what a few ms brought, for a few ms of latency.
 */
export const GATHER_MS = 5;

export interface TailEntry {
  partition: number;
  id: string;
  fields: string[];
}

type Streams = [key: string, entries: [id: string, fields: string[]][]][] | null;

export class LogTail {
  private readonly reader: RedisClient;
  private readonly logs: string[];
  private readonly partitionOf = new Map<string, number>();

  constructor(reader: RedisClient, keys: Keys) {
    this.reader = reader;
    this.logs = Array.from({ length: keys.partitions }, (_, p) => keys.partitionLog(p));
    this.logs.forEach((k, p) => this.partitionOf.set(k, p));
  }

  /** The last entry of each partition's log now ('0-0' for an empty one): where a publisher with no position starts. */
  async ends(): Promise<string[]> {
    const reads = sentTogether(this.reader, () => this.logs.map((k) => this.reader.xrevrange(k, '+', '-', 'COUNT', 1)));
    return (await Promise.all(reads)).map((r) => (r.length > 0 ? r[0][0] : '0-0'));
  }

  /** The first entry of each partition's log now (null for an empty one): a position before it missed what was trimmed. */
  async starts(): Promise<(string | null)[]> {
    const reads = sentTogether(this.reader, () => this.logs.map((k) => this.reader.xrange(k, '-', '+', 'COUNT', 1)));
    return (await Promise.all(reads)).map((r) => (r.length > 0 ? r[0][0] : null));
  }

  private lastRead = 0;

  /** The entries after `positions` (one id per partition), partitions in order; waits a little for some. */
  async read(positions: string[]): Promise<TailEntry[]> {
    const since = Date.now() - this.lastRead;
    if (since < GATHER_MS) await new Promise((r) => setTimeout(r, GATHER_MS - since));
    this.lastRead = Date.now();
    if (this.reader instanceof Cluster) {
      const reader = this.reader;
      const reads = sentTogether(reader, () => this.logs.map((k, p) => reader.xread('COUNT', COUNT, 'STREAMS', k, positions[p]) as Promise<Streams>));
      const out = this.collect(await Promise.all(reads));
      if (out.length === 0) await new Promise((r) => setTimeout(r, POLL_MS));
      return out;
    }
    const answer = (await this.reader.xread('COUNT', COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', ...this.logs, ...positions)) as Streams;
    return this.collect([answer]);
  }

  private collect(answers: Streams[]): TailEntry[] {
    const out: TailEntry[] = [];
    for (const streams of answers) {
      if (streams === null) continue;
      for (const [key, entries] of streams) {
        const partition = this.partitionOf.get(key)!;
        for (const [id, fields] of entries) out.push({ partition, id, fields });
      }
    }
    return out;
  }
}
