/**
 * A redis-server of the bench's own on a free loopback port (bench/scale-board.ts,
 * bench/scale-league.ts): millions of generated participants never reach the shared Redis. No
 * persistence (no RDB, no AOF), so nothing is written to disk and the memory it reports is the
 * data's; its directory is removed when it stops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, start, stop, type Child } from './processes.js';

export interface OwnRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'laurel-bench-redis-'));
  const child: Child = start(`redis-server :${port}`, 'redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no',
  ]);
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server :${port} did not answer: ${child.output.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url, port, pid: child.proc.pid!,
    async stop() {
      await stop(child, 5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Redis's `used_memory` in bytes (INFO memory). */
export async function usedMemory(redis: { info(section: string): Promise<string> }): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? NaN);
}
