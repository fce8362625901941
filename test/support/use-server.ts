/**
 * The test server of a describe block (or a file): started before its tests and stopped after them
 * (test/support/server.ts startTestServer), the hooks every such file would otherwise repeat. The
 * handle stands for the server once it has started; using it before (outside a test or a hook that
 * runs after it) throws.
 */
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type StartOptions, type TestServer } from './server.js';

export function useTestServer(opts: StartOptions = {}): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => { server = await startTestServer(opts); });
  afterAll(async () => { await server?.close(); });
  const started = (): TestServer => {
    if (server === undefined) throw new Error('the test server has not started: use it in a test, or in a hook after useTestServer');
    return server;
  };
  return new Proxy({} as TestServer, {
    get: (_, key) => Reflect.get(started(), key),
    set: (_, key, value) => Reflect.set(started(), key, value),
    has: (_, key) => Reflect.has(started(), key),
  });
}
