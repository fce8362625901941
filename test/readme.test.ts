/**
 * The README stays true: its curl examples run as printed (against a fresh server, with its URL
 * and admin key substituted) and answer the status they announce, and it lists every error code.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../src/lib/errors.js';
import { LAUREL_NODE_FLAGS } from '../bench/variants.js';
import { startTestServer, type TestServer } from './support/server.js';

const readme = readFileSync('README.md', 'utf8');
// Asynchronous: the server answering curl runs in this very process.
const run = promisify(execFile);

interface Example {
  status: number;
  command: string;
}

/** ```sh blocks that start with `# expect <status>` and hold one curl command. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const m of readme.matchAll(/```sh\n# expect (\d{3})\n([\s\S]*?)```/g)) {
    found.push({ status: Number(m[1]), command: m[2].trim() });
  }
  return found;
}

let s: TestServer;

beforeAll(async () => { s = await startTestServer(); });
afterAll(async () => { await s?.close(); });

describe('README', () => {
  const list = examples();

  it('has curl examples', () => {
    expect(list.length).toBeGreaterThan(8);
    for (const e of list) expect(e.command.startsWith('curl -s '), e.command).toBe(true);
  });

  it('runs every curl example as printed, in order', async () => {
    for (const e of list) {
      const command = e.command
        .replaceAll('http://localhost:3000', s.url)
        .replaceAll('dev-admin-key', s.adminKey)
        .replace(/^curl -s /, "curl -s -w '\\n%{http_code}' ");
      const { stdout: out } = await run('bash', ['-c', command], { encoding: 'utf8' });
      const lines = out.trimEnd().split('\n');
      const status = Number(lines.pop());
      const body = lines.join('\n');
      expect(status, `${e.command}\n→ ${body}`).toBe(e.status);
      expect(() => JSON.parse(body), body).not.toThrow();
    }
  });

  it('starts the api with the node flags it documents, as the bench does', () => {
    const flags = LAUREL_NODE_FLAGS.join(' ');
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.start).toBe(`node ${flags} dist/src/cli.js start`);
    expect(readFileSync('Dockerfile', 'utf8')).toContain(`ENTRYPOINT ["node", ${LAUREL_NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "dist/src/cli.js"]`);
    expect(readme).toContain(`| \`node ${flags} dist/src/cli.js api\` |`);
  });

  it('lists every error code of the catalogue with its status', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(readme, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${spec.status} \\|`));
    }
  });
});
