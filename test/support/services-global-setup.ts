/**
 * Vitest globalSetup: the tests talk to the machine's Redis (REDIS_URL) and Postgres
 * (DATABASE_URL). Where one is unreachable and a Docker engine answers, testcontainers starts it
 * (redis:7, postgres:15) and the run uses that instead; where neither works, the run stops at once
 * with a message that says what to start.
 */
import { Socket } from 'node:net';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';

interface Started {
  stop(): Promise<unknown>;
}

function reachable(url: string, fallbackPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(1500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(u.port || fallbackPort), u.hostname, () => done(true));
  });
}

async function container(image: string, port: number, env: Record<string, string> = {}) {
  // Loaded only when needed: most runs never touch Docker.
  const { GenericContainer, Wait } = await import('testcontainers');
  let c = new GenericContainer(image).withExposedPorts(port).withEnvironment(env);
  if (image.startsWith('postgres')) c = c.withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2));
  return c.start();
}

export default async function setup(): Promise<() => Promise<void>> {
  const settings = loadSettings();
  const started: Started[] = [];
  const missing: string[] = [];
  if (!(await reachable(settings.redisUrl, 6379))) missing.push(`Redis at ${settings.redisUrl} (REDIS_URL)`);
  if (!(await reachable(settings.databaseUrl, 5432))) missing.push(`Postgres at ${settings.databaseUrl} (DATABASE_URL)`);
  if (missing.length > 0) {
    try {
      if (missing.some((m) => m.startsWith('Redis'))) {
        const redis = await container('redis:7', 6379);
        started.push(redis);
        process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
      }
      if (missing.some((m) => m.startsWith('Postgres'))) {
        const pg = await container('postgres:15', 5432, { POSTGRES_HOST_AUTH_METHOD: 'trust' });
        started.push(pg);
        process.env.DATABASE_URL = `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`;
      }
      console.warn(`[services] unreachable: ${missing.join('; ')}; using testcontainers instead`);
    } catch (err) {
      await Promise.all(started.map((c) => c.stop()));
      throw new Error(
        `The tests need ${missing.join(' and ')}, which is unreachable, and the testcontainers fallback ` +
          `failed (${(err as Error).message.split('\n')[0]}). Start the service(s) or point the variable(s) at running ones.`,
      );
    }
  }
  // laurel's own database (DATABASE_URL unset: `laurel`, created when missing) with its tables, as
  // a laurel process's start makes them: the tests' own clients connect to it directly.
  if (missing.length === 0) await (await connectPostgres(settings)).end();
  return async () => {
    await Promise.all(started.map((c) => c.stop()));
  };
}
