/**
 * scripts/build.mjs, the build `npm install`, `npm run build` and `npm start` run: a part is built
 * when its output is missing or its sources' contents changed, and otherwise not at all (no
 * command starts). Run on a folder of its own with parts whose "compiler" counts its runs.
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build, inputHash, PARTS, staleness, type Part } from '../../scripts/build.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A project with two parts; each part's command appends a line to runs.log and writes its output. */
function project(): { root: string; parts: Part[]; runs: () => string[] } {
  const root = mkdtempSync(join(tmpdir(), 'laurel-build-'));
  dirs.push(root);
  mkdirSync(join(root, 'code/deep'), { recursive: true });
  mkdirSync(join(root, 'ui'));
  writeFileSync(join(root, 'code/a.js'), 'export const a = 1;\n');
  writeFileSync(join(root, 'code/deep/b.js'), 'export const b = 2;\n');
  writeFileSync(join(root, 'ui/page.tsx'), 'page\n');
  writeFileSync(join(root, 'lock.json'), '{}\n');
  const compile = (name: string, output: string) => [process.execPath, '-e',
    `const fs=require('fs');fs.appendFileSync('runs.log','${name}\\n');fs.mkdirSync(require('path').dirname('${output}'),{recursive:true});fs.writeFileSync('${output}','built')`];
  const parts: Part[] = [
    { name: 'server', inputs: ['lock.json', 'code'], output: 'dist/server.js', commands: [compile('server', 'dist/server.js')] },
    { name: 'ui', inputs: ['lock.json', 'ui'], output: 'dist/ui/index.html', commands: [compile('ui', 'dist/ui/index.html')] },
  ];
  const runs = () => (existsSync(join(root, 'runs.log')) ? readFileSync(join(root, 'runs.log'), 'utf8').split('\n').filter(Boolean) : []);
  return { root, parts, runs };
}

const quiet = () => undefined;

describe('the build of what is stale', () => {
  it('builds every part the first time, then nothing while the sources are the same', () => {
    const { root, parts, runs } = project();
    expect(staleness(root, parts[0])).toBe('dist/server.js is missing');
    expect(build({ root, parts, log: quiet }).map((b) => b.part)).toEqual(['server', 'ui']);
    expect(runs()).toEqual(['server', 'ui']);
    const lines: string[] = [];
    expect(build({ root, parts, log: (l) => lines.push(l) })).toEqual([]);
    expect(runs()).toEqual(['server', 'ui']);
    expect(lines).toEqual(['build: server is current', 'build: ui is current']);
    expect(staleness(root, parts[0])).toBeNull();
  });

  it('builds again only the part whose sources changed, a file added or a file removed', () => {
    const { root, parts, runs } = project();
    build({ root, parts, log: quiet });
    writeFileSync(join(root, 'code/deep/b.js'), 'export const b = 3;\n');
    expect(staleness(root, parts[0])).toBe('its sources changed');
    expect(staleness(root, parts[1])).toBeNull();
    expect(build({ root, parts, log: quiet })).toEqual([{ part: 'server', why: 'its sources changed' }]);
    writeFileSync(join(root, 'ui/new.tsx'), 'new\n');
    expect(build({ root, parts, log: quiet }).map((b) => b.part)).toEqual(['ui']);
    rmSync(join(root, 'ui/new.tsx'));
    expect(build({ root, parts, log: quiet }).map((b) => b.part)).toEqual(['ui']);
    // The lock file (a dependency changed) is every part's input.
    writeFileSync(join(root, 'lock.json'), '{"v":2}\n');
    expect(build({ root, parts, log: quiet }).map((b) => b.part)).toEqual(['server', 'ui']);
    expect(runs()).toEqual(['server', 'ui', 'server', 'ui', 'ui', 'server', 'ui']);
  });

  it('goes by contents, not times: a checkout that rewrote a file unchanged builds nothing', () => {
    const { root, parts, runs } = project();
    build({ root, parts, log: quiet });
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'code/a.js'), later, later);
    writeFileSync(join(root, 'ui/page.tsx'), 'page\n');
    expect(build({ root, parts, log: quiet })).toEqual([]);
    expect(runs()).toEqual(['server', 'ui']);
  });

  it('builds a part whose output is gone, and every part when forced', () => {
    const { root, parts, runs } = project();
    build({ root, parts, log: quiet });
    rmSync(join(root, 'dist/ui'), { recursive: true });
    expect(build({ root, parts, log: quiet })).toEqual([{ part: 'ui', why: 'dist/ui/index.html is missing' }]);
    expect(build({ root, parts, force: true, log: quiet }).map((b) => b.part)).toEqual(['server', 'ui']);
    expect(runs()).toEqual(['server', 'ui', 'ui', 'server', 'ui']);
  });

  it('stamps nothing for a part whose command failed: the next build tries it again', () => {
    const { root, parts, runs } = project();
    const failing: Part[] = [{ ...parts[0], commands: [[process.execPath, '-e', 'process.exit(3)']] }, parts[1]];
    expect(() => build({ root, parts: failing, log: quiet })).toThrow(/server failed: .* exited with 3/);
    expect(staleness(root, parts[0])).toBe('dist/server.js is missing');
    build({ root, parts, log: quiet });
    expect(runs()).toEqual(['server', 'ui']);
  });

  it('names laurel\'s own sources: the server\'s TypeScript and the dashboard, each with the lock file', () => {
    const root = join(import.meta.dirname, '..', '..');
    const names = PARTS.map((p) => p.name);
    expect(names).toEqual(['server', 'dashboard']);
    for (const p of PARTS) expect(p.inputs).toContain('package-lock.json');
    expect(PARTS[0].inputs).toEqual(expect.arrayContaining(['src', 'workers', 'tsconfig.json']));
    expect(PARTS[1].inputs).toContain('dashboard');
    // Every input is there, and the hash is the same when read twice.
    for (const p of PARTS) for (const i of p.inputs) expect(existsSync(join(root, i)), i).toBe(true);
    expect(inputHash(root, PARTS[1].inputs)).toBe(inputHash(root, PARTS[1].inputs));
  });
});
