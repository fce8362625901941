/**
 * Write coalescing for the hot path: the first command of an event-loop turn corks the Redis
 * sockets; they are uncorked after every `maxBatch` commands and at the end of the turn
 * (setImmediate). The commands uWS issues while handling one turn's requests thus leave in a few
 * writev calls instead of one write syscall each, and Redis starts on the first batch while the
 * api still parses the rest.
 *
 * Unlike ioredis auto-pipelining (ARCHITECTURE.md §3 measured it 20-33% slower here: it keeps one
 * batch in flight at a time and waits for its replies), this only merges writes: every command is
 * still sent at once and answered on its own. Measured with wrk on this 2-core machine (A/B,
 * alternating runs): node CPU per event down from ~45 to ~30 µs, Redis's from ~28 to ~20 µs;
 * flushing every 8 commands beat flushing once per turn by 4-20% in throughput.
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
  private turnEnd: (() => void)[] = [];

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
      this.uncork();
      this.cork();
    }
  }

  /**
   * Runs `fn` at the end of this event-loop turn, before the turn's last writes leave: commands it
   * issues (through hold()) go out after every command issued during the turn, in the same writes.
   */
  atTurnEnd(fn: () => void): void {
    this.turnEnd.push(fn);
    if (!this.scheduled) {
      this.scheduled = true;
      this.cork();
      setImmediate(this.flush);
    }
  }

  private cork(): void {
    this.held = 0;
    const nodes: Redis[] = this.client.isCluster ? (this.client as Cluster).nodes('master') : [this.client as Redis];
    for (const node of nodes) {
      const stream = (node as unknown as { stream?: Writable }).stream;
      if (stream && stream.writable) {
        stream.cork();
        this.corked.push(stream);
      }
    }
  }

  private uncork(): void {
    const streams = this.corked;
    this.corked = [];
    for (const s of streams) s.uncork();
  }

  private readonly flush = (): void => {
    if (this.turnEnd.length > 0) {
      const hooks = this.turnEnd;
      this.turnEnd = [];
      for (const fn of hooks) fn();
    }
    this.scheduled = false;
    this.uncork();
  };
}
