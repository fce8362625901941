/**
 * Write coalescing for the hot path: the first command of an event-loop turn corks the Redis
 * sockets; they are uncorked after every `maxBatch` commands and at the end of the turn
 * (setImmediate). The commands uWS issues while handling one turn's requests thus leave in a few
 * writev calls instead of one write syscall each, and Redis starts on the first batch while the
 * api still parses the rest.
 *
 * Unlike ioredis auto-pipelining (slower here: it keeps one batch in flight at a time and waits
 * for its replies), this only merges writes: every command is still sent at once and answered on
 * its own. What it saves, and why batches of 8: docs/performance.md. sentTogether does the same
 * for the commands the workers send together.
 */
import type { Writable } from 'node:stream';
import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './client.js';

export class WriteCoalescer {
  private readonly client: RedisClient;
  private readonly maxBatch: number;
  private corked: Writable[] = [];
  private held = 0;
  private scheduled = false;
  private batchEnd: (() => void)[] = [];

  constructor(client: RedisClient, maxBatch = 8) {
    this.client = client;
    this.maxBatch = maxBatch;
  }

  /** Call right before issuing a command on the hot path. */
  hold(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      this.cork();
      setImmediate(this.flush);
    } else if (++this.held >= this.maxBatch) {
      this.leave();
      this.cork();
    }
  }

  /**
   * Runs `fn` right before the current batch of writes leaves (after `maxBatch` commands, or at
   * the end of the turn): the commands it issues, without hold(), go out last in that batch,
   * behind every command held so far.
   */
  beforeBatchLeaves(fn: () => void): void {
    if (!this.scheduled) {
      this.scheduled = true;
      this.cork();
      setImmediate(this.flush);
    }
    this.batchEnd.push(fn);
  }

  private leave(): void {
    if (this.batchEnd.length > 0) {
      const hooks = this.batchEnd;
      this.batchEnd = [];
      for (const fn of hooks) fn();
    }
    this.uncork();
  }

  private cork(): void {
    this.held = 0;
    corkAll(this.client, this.corked);
  }

  private uncork(): void {
    const streams = this.corked;
    this.corked = [];
    for (const s of streams) s.uncork();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.leave();
  };
}

/** Corks the socket of every connection of `client` (each master of a Cluster), adding each to `corked`. */
function corkAll(client: RedisClient, corked: Writable[]): Writable[] {
  const nodes: Redis[] = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
  for (const node of nodes) {
    const stream = (node as unknown as { stream?: Writable }).stream;
    if (stream && stream.writable) {
      stream.cork();
      corked.push(stream);
    }
  }
  return corked;
}

/**
 * What `issue` sends (synchronously: the commands it starts) leaves in one write per connection:
 * the workers' passes send a command per partition (256 reads, trims, index reads), and under load
 * each write on its own cost a system call of tens of microseconds (docs/performance.md).
 */
export function sentTogether<T>(client: RedisClient, issue: () => T): T {
  const corked = corkAll(client, []);
  try {
    return issue();
  } finally {
    for (const s of corked) s.uncork();
  }
}
