/**
 * The dashboard (docs/dashboard.md): the static files `npm run build` makes from `dashboard/` into
 * `dist/dashboard`, read once when the api starts and served at `/dashboard`: the hashed assets
 * cached for a year (`immutable`), `index.html` revalidated every time, and any other path below
 * `/dashboard/` answered with `index.html` (the dashboard routes in the browser). No key: the
 * page asks for one and sends it with each Admin API call.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail } from '../lib/errors.js';
import { DASHBOARD_FILE, DASHBOARD_PAGE } from '../http/page-headers.js';
import type { Reply, Route } from '../http/server.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8',
};

/** Where the build put the dashboard: dist/dashboard, from dist/src/routes (built) or src/routes (tests). */
function builtDir(): string | null {
  const here = fileURLToPath(new URL('.', import.meta.url));
  // From src/routes (tests) the build is in dist/dashboard; from dist/src/routes, next to it (not dashboard/, the sources).
  for (const dir of [join(here, '../../dist/dashboard'), join(here, '../../dashboard')]) {
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

/** Every text file below `dir`, by its path below it ('index.html', 'assets/index-abc123.js'). */
function readAll(dir: string, below = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(join(dir, below))) {
    const path = below === '' ? name : `${below}/${name}`;
    if (statSync(join(dir, path)).isDirectory()) for (const [p, body] of readAll(dir, path)) files.set(p, body);
    else if (TYPES[extname(name)] !== undefined) files.set(path, readFileSync(join(dir, path), 'utf8'));
  }
  return files;
}

export function dashboardRoutes(): Route[] {
  const dir = builtDir();
  const files = dir === null ? new Map<string, string>() : readAll(dir);
  const index = files.get('index.html');
  const serve = (url: string): Reply => {
    if (index === undefined) throw fail('not_found', 'The dashboard (not built: run `npm run build`)');
    const path = url.replace(/^\/dashboard\/?/, '');
    const body = path === '' ? undefined : files.get(path);
    if (body === undefined || path === 'index.html') {
      // An asset that is not there is a 404 (a stale page asking for an old bundle); any other path is the page's own route.
      if (path.startsWith('assets/')) throw fail('not_found', `The dashboard's file "${path}"`);
      return { status: 200, body: index, contentType: TYPES['.html'], headers: { ...DASHBOARD_PAGE, 'cache-control': 'no-cache' } };
    }
    const immutable = path.startsWith('assets/');
    return {
      status: 200, body, contentType: TYPES[extname(path)],
      headers: { ...DASHBOARD_FILE, 'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache' },
    };
  };
  const page = { success: [200], contentType: TYPES['.html'], refusals: [400, 404] };
  const name = { schema: { type: 'string' } };
  return [
    { method: 'get', path: '/dashboard', family: 'ops', doc: { ...page, summary: 'The dashboard\'s page' }, handler: (req) => serve(req.url) },
    { method: 'get', path: '/dashboard/', family: 'ops', doc: { ...page, summary: 'The dashboard\'s page' }, handler: (req) => serve(req.url) },
    {
      method: 'get', path: '/dashboard/:page', family: 'ops', doc: { ...page, summary: 'The dashboard\'s page (any page of it), or a file beside it', params: { page: name } },
      handler: (req) => serve(req.url),
    },
    {
      method: 'get', path: '/dashboard/assets/:file', family: 'ops',
      doc: { success: [200], contentType: 'text/javascript', refusals: [400, 404], summary: 'A file of the dashboard (cached for a year: its name changes with it)', params: { file: name } },
      handler: (req) => serve(req.url),
    },
  ];
}
