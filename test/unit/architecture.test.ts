/**
 * The layout of docs/architecture.md holds: every import of src/ and workers/ points to a lower
 * layer (or within its own layer, its feature folders included), no module imports itself through
 * others (type-only imports count), the engine's feature folders import each other in no circle,
 * and the pure layers use no I/O package; `npm run graph` counts the graph's circles as it does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * Layers from the bottom up: a module may import a lower layer, or its own (a file in a feature
 * folder such as src/engine/streaks belongs to src/engine).
 */
const LAYERS: [folder: string, rank: number][] = [
  ['src/lib', 0],
  ['src/client', 0],
  ['src/model', 1],
  ['src/domain', 2],
  ['src/redis', 3],
  ['src/postgres', 3],
  ['src/config', 4],
  ['src/engine', 5],
  ['src/http', 6],
  ['src/routes/app', 7],
  ['src/routes/admin', 7],
  ['src/routes/ops.ts', 7],
  ['src/routes/dashboard.ts', 7],
  ['workers', 7],
  ['src/app', 8],
  ['src/loadtest', 8],
  ['src/import', 8],
  ['src/cli.ts', 9],
];

/** Layers that share nothing though one is lower: the workers serve no HTTP. */
const APART: [from: string, to: string][] = [['workers', 'src/http']];

/** Modules that route modules of their folder may share (the Admin API's batch resources, the deliveries' views, the batch events' items). */
const SHARED_IN_FOLDER = new Set(['src/routes/admin/resource.ts', 'src/routes/admin/delivery-views.ts', 'src/routes/admin/batch-items.ts']);

/** Packages that do I/O or speak a protocol: not in the pure layers. */
const IO_PACKAGES = ['ioredis', 'pg', 'bullmq', 'uWebSockets.js', 'node:net', 'node:http', 'node:http2', 'node:fs', 'nodemailer'];
const PURE = new Set(['src/lib', 'src/model', 'src/domain']);
/** The one place of process I/O in the lower layers: settings read from the environment, the logger. */
const PURE_EXCEPTIONS = new Set<string>([]);

function files(dir: string, ext = /\.(ts|lua)$/): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'results' ? [] : files(path, ext);
    return ext.test(path) ? [path] : [];
  });
}

interface Import {
  spec: string;
  /** Repository path of a relative import's target; null for a package. */
  target: string | null;
}

/** Every import and re-export of a module, `import type` included. */
function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*'([^']+)'|(?:^|\n)\s*import\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g)) {
    const spec = m[1] ?? m[2] ?? m[3];
    const target = spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec.replace(/\.js$/, '.ts'))) : null;
    found.push({ spec, target });
  }
  return found;
}

function layerOf(file: string): [folder: string, rank: number] {
  let best: [string, number] | null = null;
  for (const [folder, rank] of LAYERS) {
    if ((file === folder || file.startsWith(folder + '/')) && (best === null || folder.length > best[0].length)) best = [folder, rank];
  }
  if (best === null) throw new Error(`${file} is in no layer of docs/architecture.md`);
  return best;
}

/** A source without its comments (a comment may name a Redis call). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The calls of the Redis client in a source (`redis.get(`, `deps.redis.zrem(`), comments left out. */
function redisCalls(text: string): string[] {
  return [...stripComments(text).matchAll(/\bredis\s*\.\s*[a-zA-Z]+\s*\(/g)].map((m) => m[0]);
}

/**
 * What of src/redis/ the workers may import: the connections their queues run on, and telling a
 * connection's failure. Everything else they reach through the engine.
 */
const WORKERS_REDIS_IMPORTS = new Set(['src/redis/client.ts', 'src/redis/outage.ts']);

const modules = [...files('src', /\.ts$/), ...files('workers', /\.ts$/)].sort();
const graph = new Map(modules.map((f) => [f, importsOf(f)]));

/**
 * Strongly connected components of a graph with more than one node (or a node that leads to
 * itself), each sorted.
 */
function components(nodes: string[], next: (v: string) => string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let count = 0;
  const visit = (v: string) => {
    index.set(v, count);
    low.set(v, count++);
    stack.push(v);
    onStack.add(v);
    for (const target of next(v)) {
      if (!index.has(target)) {
        visit(target);
        low.set(v, Math.min(low.get(v)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(v, Math.min(low.get(v)!, index.get(target)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next(v).includes(v)) out.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

/** Modules that import each other through others, or themselves. */
function cycles(): string[][] {
  return components(modules, (v) => (graph.get(v) ?? []).flatMap(({ target }) => (target !== null && graph.has(target) ? [target] : [])));
}

/** The feature folder of an engine module (`src/engine/streaks/read.ts`: streaks); null for a module at the engine's root. */
function engineRoom(file: string): string | null {
  const m = /^src\/engine\/([^/]+)\//.exec(file);
  return m === null ? null : m[1];
}

/**
 * Imports that climb inside the engine: from a module at its root that its feature folders stand on
 * (imported by one of them, or by such a root module: context.ts, deps.ts, jobs.ts) into a feature
 * folder. The types every room shares live at the root, so the rooms stand on it and it on none of them.
 */
function engineClimbs(): string[] {
  const ground = new Set<string>();
  const add = (target: string | null) => {
    if (target === null || !target.startsWith('src/engine/') || engineRoom(target) !== null || ground.has(target)) return;
    ground.add(target);
    for (const i of graph.get(target) ?? []) add(i.target);
  };
  for (const [file, imports] of graph) if (engineRoom(file) !== null) for (const i of imports) add(i.target);
  return [...ground].flatMap((file) => (graph.get(file) ?? [])
    .filter((i) => i.target !== null && engineRoom(i.target) !== null)
    .map((i) => `${file} -> ${i.target}`));
}

/**
 * The imports between the engine's feature folders that close a circle of folders (folders that
 * reach each other through their imports). Without one, each folder stands on a floor above every
 * folder it imports, and no import between two folders climbs back up.
 */
function roomCircles(): string[] {
  const between = new Map<string, string[]>();
  const arrows: [from: string, to: string, imp: string][] = [];
  for (const [file, imports] of graph) {
    const from = engineRoom(file);
    if (from === null) continue;
    if (!between.has(from)) between.set(from, []);
    for (const { target } of imports) {
      const to = target === null ? null : engineRoom(target);
      if (to === null || to === from) continue;
      between.get(from)!.push(to);
      arrows.push([from, to, `${file} -> ${target}`]);
    }
  }
  const circles = components([...between.keys()].sort(), (room) => between.get(room) ?? []);
  return circles.flatMap((rooms) => arrows.filter(([from, to]) => rooms.includes(from) && rooms.includes(to)).map(([, , imp]) => imp)).sort();
}

describe('architecture', () => {
  it('finds the modules and their imports', () => {
    expect(modules).toContain('src/cli.ts');
    expect(graph.get('src/cli.ts')!.some((i) => i.target === 'src/app/api.ts')).toBe(true);
  });

  it('places every module in a layer', () => {
    for (const m of modules) expect(() => layerOf(m), m).not.toThrow();
  });

  it('has no import cycle, type-only imports included', () => {
    expect(cycles()).toEqual([]);
  });

  it('imports only lower layers or its own folder', () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const [folder, rank] = layerOf(file);
      for (const { spec, target } of imports) {
        if (target === null) continue;
        expect(graph.has(target), `${file} imports ${spec}, which is not a module`).toBe(true);
        const [toFolder, toRank] = layerOf(target);
        const routes = folder.startsWith('src/routes/');
        const sameFolder = toFolder === folder && (!routes || SHARED_IN_FOLDER.has(target));
        const apart = APART.some(([a, b]) => a === folder && b === toFolder);
        if ((!sameFolder && toRank >= rank) || apart) wrong.push(`${file} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the engine\'s feature folders above its root: no import climbs back from the root to a folder', () => {
    expect(engineClimbs()).toEqual([]);
  });

  it('keeps the engine\'s feature folders on floors: no circle of folders, so no import between them climbs', () => {
    expect(roomCircles()).toEqual([]);
  });

  it('keeps I/O packages out of lib, model and domain', () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      if (!PURE.has(layerOf(file)[0]) || PURE_EXCEPTIONS.has(file)) continue;
      for (const { spec } of imports) if (IO_PACKAGES.includes(spec)) wrong.push(`${file} -> ${spec}`);
    }
    expect(wrong).toEqual([]);
  });

  it('keeps Redis and Postgres out of the routes: they read and write through the engine', () => {
    const routes = modules.filter((f) => f.startsWith('src/routes/'));
    const calls = routes.flatMap((f) => redisCalls(readFileSync(join(ROOT, f), 'utf8')).map((call) => `${f}: ${call}`));
    expect(calls).toEqual([]);
    // Nor the stored forms: the codecs and queries of src/redis/ and src/postgres/ are the engine's to use.
    const imports = routes.flatMap((f) => graph.get(f)!
      .filter((i) => i.target?.startsWith('src/redis/') || i.target?.startsWith('src/postgres/')).map((i) => `${f} imports ${i.target}`));
    expect(imports).toEqual([]);
  });

  it('keeps Redis out of the workers: they schedule and call the engine', () => {
    const wrong: string[] = [];
    for (const f of modules.filter((m) => m.startsWith('workers/'))) {
      for (const call of redisCalls(readFileSync(join(ROOT, f), 'utf8'))) wrong.push(`${f}: ${call}`);
      for (const { target } of graph.get(f)!) {
        if (target !== null && target.startsWith('src/redis/') && !WORKERS_REDIS_IMPORTS.has(target)) wrong.push(`${f} imports ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the log drain unaware of its consumers: they are listed in src/engine/log-drain/consumers.ts', () => {
    // What the drain itself needs: the logs, read and trimmed, and its consumers' shape and list.
    const own = new Set(['src/engine/deps.ts', 'src/engine/durability/event-logs.ts', 'src/engine/log-drain/consumer.ts', 'src/engine/log-drain/consumers.ts']);
    const wrong = graph.get('src/engine/log-drain/drain.ts')!.map((i) => i.target)
      .filter((t): t is string => t !== null && (t.startsWith('src/engine/') || t.startsWith('workers/')) && !own.has(t));
    expect(wrong).toEqual([]);
  });

  it('finds a Redis call, and not one in a comment (the rules can fail)', () => {
    expect(redisCalls('await deps.redis.zrem(due, member);\nconst p = redis . pipeline();')).toEqual(['redis.zrem(', 'redis . pipeline(']);
    expect(redisCalls('// redis.get(key)\n/* svc.redis.ping() */\nconst redisKey = 1;')).toEqual([]);
  });

  it('names only files that exist, in comments and docs', () => {
    const texts = [...modules, ...files('lua'), ...files('test'), ...files('bench'), 'README.md',
      ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const missing: string[] = [];
    for (const file of texts) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/\b(?:src|lua|workers|test|bench|docs)\/[A-Za-z0-9_./-]*\.(?:ts|lua|md)\b/g)) {
        if (!existsSync(join(ROOT, m[0]))) missing.push(`${file}: ${m[0]}`);
      }
      // A document named bare (`operations.md`, `README.md`): beside the file, at the root or in docs/.
      for (const m of text.matchAll(/(?<![A-Za-z0-9_./-])[A-Za-z0-9_-]+\.md\b/g)) {
        const beside = join(ROOT, dirname(file), m[0]);
        if (![beside, join(ROOT, m[0]), join(ROOT, 'docs', m[0])].some((p) => existsSync(p))) missing.push(`${file}: ${m[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('fails on an engine root module a folder stands on importing a folder (the check can fail)', () => {
    const before = graph.get('src/engine/deps.ts')!;
    graph.set('src/engine/deps.ts', [...before, { spec: './durability/outage-phase2.js', target: 'src/engine/durability/outage-phase2.ts' }]);
    try {
      expect(engineClimbs()).toEqual(['src/engine/deps.ts -> src/engine/durability/outage-phase2.ts']);
    } finally {
      graph.set('src/engine/deps.ts', before);
    }
  });

  it('fails on an engine folder importing a folder that stands on it (the check can fail)', () => {
    // The leaderboards announce through the webhooks, which stand on the live updates.
    const before = graph.get('src/engine/live/tail.ts')!;
    graph.set('src/engine/live/tail.ts', [...before, { spec: '../leaderboards/rank-user.js', target: 'src/engine/leaderboards/rank-user.ts' }]);
    try {
      const found = roomCircles();
      expect(found).toContain('src/engine/live/tail.ts -> src/engine/leaderboards/rank-user.ts');
      expect(found.some((imp) => imp.startsWith('src/engine/leaderboards/') && imp.includes(' -> src/engine/webhooks/'))).toBe(true);
    } finally {
      graph.set('src/engine/live/tail.ts', before);
    }
    expect(roomCircles()).toEqual([]);
  });

  it('fails on a cycle and on a wrong-way import (the checks can fail)', () => {
    graph.set('src/lib/clock.ts', [...graph.get('src/lib/clock.ts')!, { spec: '../cli.js', target: 'src/cli.ts' }]);
    try {
      expect(cycles().length).toBeGreaterThan(0);
      const [, rank] = layerOf('src/lib/clock.ts');
      expect(layerOf('src/cli.ts')[1]).toBeGreaterThan(rank);
    } finally {
      graph.set('src/lib/clock.ts', importsOf('src/lib/clock.ts'));
    }
  });
});

describe('npm run graph (scripts/import-graph.mjs)', () => {
  const figures = (dir: string) => {
    const out = execFileSync(process.execPath, [join(ROOT, 'scripts/import-graph.mjs'), dir], { encoding: 'utf8' });
    return Object.fromEntries(out.trim().split('\n').map((line) => {
      const m = /^(.*?)\s+(\d+)$/.exec(line)!;
      return [m[1], Number(m[2])];
    }));
  };

  it('finds this checkout free of circles, and finds the circle of a tree that has one', () => {
    const here = figures(ROOT);
    expect(here['circles (strongly connected components of more than one file)']).toBe(0);
    expect(here['imports from src/routes/ into src/postgres/ or src/redis/']).toBe(0);
    expect(here.files).toBeGreaterThan(100);
    const dir = mkdtempSync(join(tmpdir(), 'laurel-graph-'));
    try {
      mkdirSync(join(dir, 'src', 'routes'), { recursive: true });
      mkdirSync(join(dir, 'src', 'postgres'), { recursive: true });
      writeFileSync(join(dir, 'src', 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
      writeFileSync(join(dir, 'src', 'b.ts'), "import type { a } from './a.js';\nexport const b = 1 as unknown as typeof a;\n");
      writeFileSync(join(dir, 'src', 'routes', 'r.ts'), "export { q } from '../postgres/q.js';\n");
      writeFileSync(join(dir, 'src', 'postgres', 'q.ts'), 'export const q = 1;\n');
      const there = figures(dir);
      expect(there).toMatchObject({
        files: 4,
        'import edges between files': 3,
        'circles (strongly connected components of more than one file)': 1,
        'imports from src/routes/ into src/postgres/ or src/redis/': 1,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
