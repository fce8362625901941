/**
 * One Node.js version, stated and checked: the versions laurel refuses and accepts, and
 * package.json's `engines`, the Dockerfile and CI's script saying the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeProblem, SUPPORTED_NODE } from '../../src/lib/node-version.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

describe('the Node.js versions laurel runs on', () => {
  it('accepts 20 from 20.11 and 22, and refuses the others with what to do', () => {
    for (const v of ['20.11.0', '20.20.2', 'v20.19.1', '22.0.0', '22.21.1']) expect(nodeProblem(v), v).toBeNull();
    for (const v of ['18.20.4', '20.10.0', '21.7.3', '23.11.0', '24.1.0', '25.0.0', 'weird']) {
      expect(nodeProblem(v), v).toMatch(new RegExp(`^Node\\.js ${v.replace(/\./g, '\\.')} cannot run laurel: it runs on Node\\.js 20 \\(20\\.11 or later\\) or 22`));
      expect(nodeProblem(v), v).toMatch(/Install Node\.js 20/);
    }
    // This test runs on a supported one.
    expect(nodeProblem(process.versions.node)).toBeNull();
  });

  it('is what engines, the Dockerfile and CI say', () => {
    const engines = JSON.parse(read('package.json')).engines.node as string;
    expect(engines).toBe(Object.entries(SUPPORTED_NODE).map(([major, minor]) => `^${major}.${minor}.0`).join(' || '));
    // The image is built and run on Node.js 20, as CI tests.
    const froms = [...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const f of froms) expect(f).toMatch(/^node:20-/);
    expect(read('.ci/run')).toMatch(/node --version/);
    expect(read('.ci/run')).toContain('v20.');
  });

  it('is checked before anything else the command line imports', () => {
    const imports = [...read('src/cli.ts').matchAll(/^import .*$/gm)].map((m) => m[0]);
    expect(imports[0]).toBe("import './app/node-check.js';");
  });
});
