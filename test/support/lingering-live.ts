/**
 * What the tests of live topics dropped by an erasure share (test/live/erasure.test.ts, a user's;
 * test/live/tenant-erasure.test.ts, a tenant's): a server with the workers whose api process keeps
 * a topic 120 s after its last socket let it go (LAUREL_LIVE_LINGER), stopped after the file's
 * tests, with two user ids of its own; a socket that holds some topics, and another that held
 * others and let them go.
 */
import { afterAll } from 'vitest';
import { openLive, liveUrl, type LiveClient } from './live-client.js';
import { deletePostgresRows, startTestServer, type Target, type TestServer } from './server.js';

export interface LingeringLive {
  /** Run after the file's tests, last pushed first. */
  cleanups: (() => Promise<unknown>)[];
  /** The server, and two user ids of its own: `held` (its topic held), `gone` (its topic let go). */
  start(): Promise<{ s: TestServer; held: string; gone: string }>;
  /** A socket that holds `topics` (closed after the tests), once another held `left` and let them go. */
  hold(s: TestServer, topics: string[], left: string[], tenant?: string): Promise<LiveClient>;
}

export function lingeringLive(target: Target): LingeringLive {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });
  return {
    cleanups,
    async start() {
      const s = await startTestServer({ target, workers: true, env: { LAUREL_LIVE_LINGER: '120' } });
      cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
      cleanups.push(() => s.close());
      const tag = s.prefix.slice(1);
      return { s, held: `held-${tag}`, gone: `gone-${tag}` };
    },
    async hold(s, topics, left, tenant) {
      const live = await openLive(liveUrl(s.url, s.adminKey, tenant));
      cleanups.push(() => live.close());
      await live.subscribe(topics);
      const other = await openLive(liveUrl(s.url, s.adminKey, tenant));
      await other.subscribe(left);
      await other.close();
      return live;
    },
  };
}
