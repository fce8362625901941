/**
 * A redis-server of a test's own, on a free port (outside the ephemeral range: support/ports.ts), that keeps nothing on disk unless asked: it can
 * be killed (its data gone with it) and started again, empty, on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stablePort } from './ports.js';

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILL: what it held is gone (without persistence). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Kills it and removes its directory. */
  stop(): Promise<void>;
}

/** PING without a client library: true once the server answers PONG. */
export function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => { socket.write('PING\r\n'); });
    socket.once('data', (d) => { socket.destroy(); resolve(String(d).startsWith('+PONG')); });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
  });
}

export async function startRedisServer(opts: { persistent?: boolean } = {}): Promise<RedisServer> {
  const port = await stablePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), `laurel-redis-${port}-`));
  let child: ChildProcess | null = null;
  const persistence = opts.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...persistence], { stdio: 'ignore' });
      for (const until = Date.now() + 10_000; Date.now() < until;) {
        if (await answers(port)) return;
        await sleep(50);
      }
      throw new Error(`redis-server :${port} did not start`);
    },
    async kill() {
      const c = child;
      if (c === null || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGKILL');
      await gone;
    },
    async stop() {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
