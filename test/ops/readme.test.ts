/**
 * The docs stay true: the curl examples of the README and then of every docs/*.md file (docs/api.md
 * first, the others alphabetically) run as printed, in that order, against one fresh server as
 * `npm start` runs it (the default api processes, and the workers, which apply a batch while the
 * examples after it run, as they would for a reader; its URL and admin key substituted), and answer the status they announce, in the shapes of the
 * 1.21.1 specs (test/support/openapi.ts); docs/api.md lists every error code; docs/operations.md
 * shows the api's node flags; every relative link resolves.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS, PROCESS_ERRORS } from '../../src/lib/errors.js';
import { LAUREL_NODE_FLAGS } from '../../bench/variants.js';
import { assertConforms } from '../support/openapi.js';
import { useTestServer } from '../support/use-server.js';

/** The README, then docs/api.md (its examples carry on from the README's), then the other docs. */
const DOCS = [
  'README.md',
  'docs/api.md',
  ...readdirSync('docs').filter((f) => f.endsWith('.md') && f !== 'api.md').sort().map((f) => `docs/${f}`),
];
const text = new Map(DOCS.map((file) => [file, readFileSync(file, 'utf8')]));
const doc = (file: string): string => text.get(file) ?? '';
// Asynchronous: the server answering curl runs in this very process.
const run = promisify(execFile);

interface Example {
  status: number;
  command: string;
}

/** ```sh blocks that start with `# expect <status>` and hold one curl command. */
function examples(markdown: string): Example[] {
  const found: Example[] = [];
  for (const m of markdown.matchAll(/```sh\n# expect (\d{3})\n([\s\S]*?)```/g)) {
    found.push({ status: Number(m[1]), command: m[2].trim() });
  }
  return found;
}

const s = useTestServer({ processes: true, workers: true });


describe('docs', () => {
  it('has curl examples in the README and in docs/api.md', () => {
    expect(examples(doc('README.md')).length).toBeGreaterThanOrEqual(5);
    expect(examples(doc('docs/api.md')).length).toBeGreaterThan(15);
    for (const file of DOCS) {
      for (const e of examples(doc(file))) expect(e.command.startsWith('curl -s '), `${file}: ${e.command}`).toBe(true);
    }
  });

  // One server for all of them, in order: each file's examples may use what earlier ones made.
  for (const file of DOCS) {
    it(`runs every curl example of ${file} as printed, in order`, async () => {
      for (const e of examples(doc(file))) {
        const command = e.command
          .replaceAll('http://localhost:3000', s.url)
          .replaceAll('dev-admin-key', s.adminKey)
          .replace(/^curl -s /, "curl -s -w '\\n%{http_code}' ");
        const { stdout: out } = await run('bash', ['-c', command], { encoding: 'utf8' });
        const lines = out.trimEnd().split('\n');
        const status = Number(lines.pop());
        const body = lines.join('\n');
        expect(status, `${file}: ${e.command}\n→ ${body}`).toBe(e.status);
        expect(() => JSON.parse(body), body).not.toThrow();
        // Curl's answers, like every other the tests get, keep to the 1.21.1 response schemas.
        const method = /(?:^| )-X (\w+)/.exec(e.command)?.[1] ?? 'GET';
        const url = new URL(/http:\/\/localhost:3000[^\s'"]*/.exec(e.command)![0]);
        assertConforms({ method, path: url.pathname + url.search, status, body: JSON.parse(body) });
      }
    });
  }

  it('starts the api with the node flags it documents, as the bench does', () => {
    const flags = LAUREL_NODE_FLAGS.join(' ');
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.start).toBe(`exec node ${flags} dist/src/cli.js start`);
    expect(readFileSync('Dockerfile', 'utf8')).toContain(`ENTRYPOINT ["node", ${LAUREL_NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "dist/src/cli.js"]`);
    expect(doc('docs/operations.md')).toContain(`| \`node ${flags} dist/src/cli.js api\` |`);
  });

  it('lists every error code of the catalogue with its status in docs/api.md', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(doc('docs/api.md'), code).toMatch(new RegExp(`\\| \`${code}\` \\| ${spec.status} \\|`));
    }
  });

  it('lists every process error code of the catalogue in docs/operations.md, and only those, saying what it says', () => {
    const listed = [...doc('docs/operations.md').matchAll(/^\| `([a-z_]+)` \| `\w+` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(listed)).toEqual(PROCESS_ERRORS);
  });

  it('holds no merge left unfinished', () => {
    for (const file of DOCS) expect(doc(file), file).not.toMatch(/^(<{7}|={7}|>{7})( |$)/m);
  });

  it('links only to files that exist', () => {
    let links = 0;
    for (const file of DOCS) {
      // Inline links `](target)` outside code; a target with a scheme or only an anchor is not a file.
      const prose = doc(file).replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1].split('#')[0];
        if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        links++;
        expect(existsSync(join(dirname(file), decodeURIComponent(target))), `${file} → ${m[1]}`).toBe(true);
      }
    }
    expect(links).toBeGreaterThan(5);
  });
});
