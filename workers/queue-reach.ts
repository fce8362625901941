/**
 * Whether the Redis node that holds the queues answers. Every BullMQ queue of the workers lives
 * under one hash tag (`<prefix>:{q}`, src/redis/keys.ts queuePrefix), so on a Cluster one primary
 * holds them all, and the process's other checks miss it when that one is down: a `PING` goes to
 * any node, and the workers' connection stays `ready` while the others answer. The probe is one
 * `EXISTS` of a key of that slot on the queues' own connection, bounded by PROBE_MS; at most one
 * is in flight (on a connection that queues commands while its node is away, one that has not
 * answered is not sent again: a probe asked for meanwhile fails at once, saying how long it has
 * waited).
 */
import type { RedisClient } from '../src/redis/client.js';

/** How long the queues' node may take to answer the probe (ms). */
export const PROBE_MS = 1000;

export interface Reach {
  ok: boolean;
  /** Why not (absent when it answered). */
  detail?: string;
}

export class QueueReach {
  private inFlight: { since: number; answer: Promise<Reach> } | null = null;

  constructor(
    private readonly connection: RedisClient,
    /** A key of the queues' slot (it need not exist). */
    private readonly key: string,
    private readonly timeoutMs = PROBE_MS,
  ) {}

  /** Whether the queues' node answers within the timeout. */
  async probe(): Promise<Reach> {
    const now = Date.now();
    if (this.inFlight === null) {
      const flight = {
        since: now,
        answer: this.connection.exists(this.key).then(
          (): Reach => ({ ok: true }),
          (err: unknown): Reach => ({ ok: false, detail: `the queues' Redis node failed: ${err instanceof Error ? err.message : String(err)}` }),
        ).finally(() => { if (this.inFlight === flight) this.inFlight = null; }),
      };
      this.inFlight = flight;
    }
    const { since, answer } = this.inFlight;
    const left = Math.max(0, since + this.timeoutMs - now);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Reach>((resolve) => {
      timer = setTimeout(() => resolve({
        ok: false, detail: `the queues' Redis node (the slot of ${this.key}) has not answered for ${Date.now() - since} ms`,
      }), left);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
