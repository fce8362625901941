/**
 * The workers against real Redis and Postgres: the configuration copy follows every change.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.js';

let s: TestServer;
let db: pg.Client;

beforeAll(async () => {
  s = await startTestServer({ workers: true });
  db = new pg.Client({ connectionString: s.settings.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await s?.close();
  if (db) {
    await db.query('DELETE FROM laurel_config WHERE prefix = $1', [s.prefix]);
    await db.end();
  }
});

async function copied(): Promise<Map<string, any>> {
  await s.workers!.configCopied(s.api.services.store.current.version);
  const { rows } = await db.query('SELECT kind, id, body FROM laurel_config WHERE prefix = $1', [s.prefix]);
  return new Map(rows.map((r) => [`${r.kind}:${r.id}`, r.body]));
}

describe('config-copy worker', () => {
  it('copies created, updated and deleted configuration into Postgres', async () => {
    const ids = await s.metrics('lessons', 'quizzes');
    let rows = await copied();
    expect(rows.get(`metrics:${ids.lessons}`)).toMatchObject({ key: 'lessons', name: 'Metric lessons' });
    expect([...rows.keys()].filter((k) => k.startsWith('apikeys:'))).toHaveLength(1);

    await s.request('PATCH', '/admin/v1/metrics', { body: [{ id: ids.lessons, name: 'Renamed' }] });
    await s.request('DELETE', `/admin/v1/metrics?ids=${ids.quizzes}`);
    rows = await copied();
    expect(rows.get(`metrics:${ids.lessons}`).name).toBe('Renamed');
    expect(rows.has(`metrics:${ids.quizzes}`)).toBe(false);
  });

  it('never stores a secret: API keys are copied as hashes', async () => {
    const r = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application' } });
    const rows = await copied();
    const copy = JSON.stringify(rows.get(`apikeys:${r.body.id}`));
    expect(copy).toContain('"hash"');
    expect(copy).not.toContain(r.body.key.split('.')[1]);
  });
});
