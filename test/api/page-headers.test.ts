/**
 * The headers of every HTML page laurel serves (docs/operations.md, "Pages"): each route of
 * `/openapi.json` that answers `text/html` (the dashboard's pages, the emails' links' preferences
 * page, shown and posted) carries a Content-Security-Policy whose scripts are laurel's own (no
 * `'unsafe-inline'` or `'unsafe-eval'` script), `frame-ancestors 'none'`, `nosniff` and a
 * Referrer-Policy; the dashboard's scripts carry `nosniff`. And every URL laurel stores is `http`
 * or `https`: a badge (achievements, points systems, levels), the branding's logo and address,
 * a webhook.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';
import { signToken } from '../../src/domain/notifications/link-tokens.js';
import { signingSecret } from '../../src/engine/notifications/links.js';

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name !== '') out.set(name, values);
  }
  return out;
}

/** What is wrong with a page's headers; empty when nothing is. */
function pageProblems(path: string, headers: Headers): string[] {
  const problems: string[] = [];
  const csp = directives(headers.get('content-security-policy'));
  const scripts = csp.get('script-src') ?? csp.get('default-src');
  if (scripts === undefined) problems.push(`${path}: no script-src or default-src`);
  else if (scripts.some((v) => v === "'unsafe-inline'" || v === "'unsafe-eval'" || v === '*' || v === 'data:')) problems.push(`${path}: scripts from ${scripts.join(' ')}`);
  if (csp.get('frame-ancestors')?.join(' ') !== "'none'") problems.push(`${path}: frame-ancestors ${csp.get('frame-ancestors')?.join(' ')}`);
  if (csp.get('object-src')?.join(' ') !== "'none'") problems.push(`${path}: object-src ${csp.get('object-src')?.join(' ')}`);
  if (headers.get('x-content-type-options') !== 'nosniff') problems.push(`${path}: X-Content-Type-Options ${headers.get('x-content-type-options')}`);
  if (headers.get('referrer-policy') === null) problems.push(`${path}: no Referrer-Policy`);
  return problems;
}

describe('pages and stored URLs', () => {
  const s = useTestServer();
  let lessons = '';

  beforeAll(async () => {
    lessons = (await s.metrics('lessons')).lessons;
  });

  it('sends the security headers with every HTML page of /openapi.json, and nosniff with the dashboard\'s files', async () => {
    await s.event('lessons', { id: 'ada', email: 'ada@example.test' }, 1);
    const token = signToken(await signingSecret(s.api.services), { tenant: '_', userId: 'ada' });
    const doc = (await s.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>> };
    const pages: { method: string; path: string }[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!Object.keys(op.responses?.['200']?.content ?? {}).some((t) => t.startsWith('text/html'))) continue;
        pages.push({ method, path: template.replace('{token}', token).replace('{page}', 'users') });
      }
    }
    // The dashboard's four routes' pages and the links' three: none left out of the walk.
    expect(pages.map((p) => `${p.method} ${p.path.replace(token, '{token}')}`).sort()).toEqual([
      'get /dashboard', 'get /dashboard/', 'get /dashboard/users', 'get /preferences/{token}', 'get /unsubscribe/{token}', 'post /preferences/{token}',
    ]);
    const problems: string[] = [];
    for (const { method, path } of pages) {
      const r = await fetch(`${s.url}${path}`, method === 'post'
        ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'choice=subscribe' }
        : {});
      expect(r.status, `${method} ${path}`).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      problems.push(...pageProblems(`${method} ${path}`, r.headers));
    }
    expect(problems).toEqual([]);
    // The page's own bundle, named in it: served as a script, never sniffed as another type.
    const page = await (await fetch(`${s.url}/dashboard/`)).text();
    const bundle = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(bundle).toBeDefined();
    const file = await fetch(`${s.url}${bundle}`);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    // No inline script the policy would block: the page's scripts are files.
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('stores only http and https URLs: badges, branding, webhooks', async () => {
    const bad = ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'JAVASCRIPT:alert(1)', '/relative/badge.png', 'ftp://files.example.test/a.png', 'vbscript:x'];
    for (const url of bad) {
      const refusals = [
        await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Badge', key: 'badge', trigger: 'metric', metricId: lessons, metricValue: 1, badge: { url } }] }),
        await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', badge: { url } }] }),
        await s.request('POST', '/admin/v1/points', { body: [{ name: 'Lv', key: 'lv', levels: [{ name: 'One', key: 'one', points: 1, badge: { url } }] }] }),
        await s.request('PATCH', '/admin/v1/settings', { body: { branding: { logo: { url } } } }),
        await s.request('PATCH', '/admin/v1/settings', { body: { branding: { appUrl: url } } }),
        await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Hook', url, events: ['achievement.completed'] }] }),
      ];
      for (const r of refusals) {
        // Refused as a whole (400 or 422), or as the item's issue: nothing created.
        if (r.status === 200 || r.status === 201) {
          expect(r.body.created, r.text).toEqual([]);
          expect(JSON.stringify(r.body.issues), r.text).toMatch(/url/i);
        } else {
          expect([400, 422], r.text).toContain(r.status);
          expect(r.body.error, r.text).toMatch(/url/i);
        }
      }
    }
    const stored = JSON.stringify((await s.request('GET', '/admin/v1/achievements')).body) + JSON.stringify((await s.request('GET', '/admin/v1/points')).body)
      + JSON.stringify((await s.request('GET', '/admin/v1/settings')).body);
    for (const url of bad) expect(stored).not.toContain(url);
    // An https badge is taken.
    const ok = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Badge', key: 'badge', trigger: 'metric', metricId: lessons, metricValue: 1, badge: { url: 'https://cdn.example.test/b.png' } }] });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.created[0].badge).toEqual({ url: 'https://cdn.example.test/b.png' });
  });
});
