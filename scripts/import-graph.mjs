/**
 * The import graph's figures, as docs/architecture.md quotes them: the TypeScript files of src/,
 * workers/, bench/ and dashboard/src/ (test/, node_modules and dist left out), the folders that hold
 * them, the import edges between them (a file importing another, counted once however many imports
 * name it), the circles (strongly connected components of more than one file, type-only imports
 * included), the wrong-way imports (src/ into bench/ or workers/; src/routes/ into src/postgres/ or
 * src/redis/), and the folders holding the leaderboards' files (a path containing "leaderboard" or
 * "league", in any case).
 *
 * Imports read: `import ... from '<spec>'`, `export ... from '<spec>'`, `import '<spec>'` and
 * `import('<spec>')` with a relative specifier; `./x.js` names `./x.ts` or `./x.tsx`.
 *
 *   node scripts/import-graph.mjs [dir]    (dir: the checkout to read; default the current directory)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';

const ROOT = resolve(process.argv[2] ?? process.cwd());
const ROOTS = ['src', 'workers', 'bench', 'dashboard/src'];
const SKIPPED = new Set(['node_modules', 'dist', 'test']);

/** Repository paths (with `/`) of the .ts and .tsx files under a folder. */
function sources(dir) {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return SKIPPED.has(name) ? [] : sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = [...new Set(ROOTS.flatMap((dir) => sources(dir)))].sort();
const known = new Set(files);

/** The file a relative specifier names, or null when it names none of the files read. */
function target(from, spec) {
  const base = relative(ROOT, resolve(ROOT, dirname(from), spec)).split(sep).join('/');
  const stem = base.replace(/\.(js|jsx|ts|tsx)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (known.has(candidate)) return candidate;
  }
  return null;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*(['"])([^'"]+)\1|(?:^|\n)\s*import\s*(['"])([^'"]+)\3|\bimport\(\s*(['"])([^'"]+)\5\s*\)/g;

/** Each file's targets among the files read, each once. */
const graph = new Map(files.map((file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const targets = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[4] ?? m[6];
    if (!spec.startsWith('.')) continue;
    const to = target(file, spec);
    if (to !== null && to !== file) targets.add(to);
  }
  return [file, [...targets]];
}));

/** Strongly connected components (Tarjan's, without recursion). */
function components() {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  let count = 0;
  for (const root of files) {
    if (index.has(root)) continue;
    const work = [[root, 0]];
    index.set(root, count);
    low.set(root, count++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      const next = graph.get(v);
      if (i < next.length) {
        frame[1]++;
        const w = next[i];
        if (!index.has(w)) {
          index.set(w, count);
          low.set(w, count++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        out.push(component);
      }
    }
  }
  return out;
}

const under = (file, folder) => file.startsWith(`${folder}/`);
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => [from, to]));
const circles = components().filter((c) => c.length > 1);
const folderOf = (file) => posix.dirname(file);
const boardFolders = new Set(files.filter((f) => /leaderboard|league/i.test(f)).map(folderOf));

const figures = [
  ['files', files.length],
  ['folders holding them', new Set(files.map(folderOf)).size],
  ['import edges between files', edges.length],
  ['circles (strongly connected components of more than one file)', circles.length],
  ['files in those circles', circles.reduce((n, c) => n + c.length, 0)],
  ['imports from src/ into bench/ or workers/', edges.filter(([f, t]) => under(f, 'src') && (under(t, 'bench') || under(t, 'workers'))).length],
  ['imports from src/routes/ into src/postgres/ or src/redis/', edges.filter(([f, t]) => under(f, 'src/routes') && (under(t, 'src/postgres') || under(t, 'src/redis'))).length],
  ['folders holding leaderboard or league files', boardFolders.size],
];

const width = Math.max(...figures.map(([name]) => name.length));
for (const [name, value] of figures) console.log(`${name.padEnd(width)}  ${value}`);
