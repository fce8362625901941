/**
 * `laurel loadtest --cleanup <run id>`: removes what a run left behind when it could not remove it
 * itself (killed outright, or run with --keep). Finds by name what the run creates (the tenant
 * `loadtest-<run id>`, the metric, its achievements, points system and leaderboard) and removes it
 * as a run's end does; the streak rule is set to one naming no metric when it names only the run's
 * metric (a run sets one only when the installation has none): it extends no streak, as none did.
 */
import { parseOptions, type OptionSpec } from '../lib/cli-options.js';
import { SettingsError } from '../lib/settings.js';
import { AdminError, call, cleanUp, emptyCreated, type Admin, type Created } from './admin.js';

export const CLEANUP_USAGE = 'laurel loadtest --cleanup <run id> --url <base> --key <admin key>';

const CLEANUP_OPTIONS: OptionSpec = { usage: CLEANUP_USAGE, values: ['--cleanup', '--url', '--key'] };

/** The run ids `laurel loadtest` makes: eight hexadecimal digits. */
const RUN_ID = /^[0-9a-f]{8}$/;

export interface CleanupOptions {
  admin: Admin;
  runId: string;
}

/** Parses `--cleanup <run id> --url <base> --key <key>`; `--help` answers null. */
export function parseCleanupOptions(args: string[]): CleanupOptions | null {
  const o = parseOptions(args, CLEANUP_OPTIONS);
  if (o.help) return null;
  const refuse = (why: string) => new SettingsError(`${why}\nusage: ${CLEANUP_USAGE}`);
  const runId = o.values.get('--cleanup') ?? '';
  if (!RUN_ID.test(runId)) throw refuse(`--cleanup takes a run id (eight hexadecimal digits, as in loadtest-<run id>), not "${runId}"`);
  const url = o.values.get('--url');
  const key = o.values.get('--key');
  if (url === undefined || !/^https?:\/\/[^?#]+$/.test(url)) throw refuse('--url is needed: the base URL of the installation (http://host:port)');
  if (key === undefined || key === '') throw refuse('--key is needed: an admin API key of the installation');
  return { admin: { url: url.replace(/\/+$/, ''), key }, runId };
}

/** Every item of an Admin list, a page at a time. */
async function listAll(a: Admin, path: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let skip = 0; ; skip += 100) {
    const r = await call(a, 'GET', `${path}?limit=100&skip=${skip}`);
    if (r.status !== 200 || !Array.isArray(r.body)) throw new AdminError(`GET ${path} failed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    all.push(...(r.body as Record<string, unknown>[]));
    if (r.body.length < 100) return all;
  }
}

/** What the run `runId` created and is still there, found by its names. */
export async function findRun(a: Admin, runId: string): Promise<Created> {
  const name = `loadtest-${runId}`;
  const found = emptyCreated();
  const one = (items: Record<string, unknown>[], field: string) => items.find((x) => x[field] === name) as { id: string } | undefined;
  const tenant = one(await listAll(a, '/admin/v1/tenants'), 'customerId');
  if (tenant) found.tenant = { id: tenant.id, customerId: name };
  const metric = one(await listAll(a, '/admin/v1/metrics'), 'key');
  if (metric) found.metric = { id: metric.id, key: name };
  found.achievements = (await listAll(a, '/admin/v1/achievements'))
    .filter((x) => typeof x.key === 'string' && x.key.startsWith(`${name}-`)).map((x) => x.id as string);
  const points = one(await listAll(a, '/admin/v1/points'), 'key');
  if (points) found.points = { id: points.id, key: name };
  const board = one(await listAll(a, '/admin/v1/leaderboards'), 'key');
  if (board) found.leaderboard = { id: board.id, key: name };
  if (metric) {
    const r = await call(a, 'GET', '/admin/v1/streaks/settings');
    const rule = r.body as { frequency: string; evaluation: string; metrics: { metricId: string }[]; freezes: unknown } | null;
    if (r.status === 200 && rule?.metrics.length === 1 && rule.metrics[0]!.metricId === metric.id) {
      found.streakBefore = { frequency: 'daily', evaluation: 'all', metrics: [], freezes: null };
    }
  }
  return found;
}

/** Runs the cleanup; answers the exit code (0: nothing of the run is left). */
export async function cleanupCommand(o: CleanupOptions, print: (line: string) => void): Promise<number> {
  const found = await findRun(o.admin, o.runId);
  const what = [
    found.tenant && `tenant ${found.tenant.customerId}`, found.metric && `metric ${found.metric.key}`,
    found.achievements.length > 0 && `${found.achievements.length} achievements`, found.streakBefore && 'the streak rule on its metric',
    found.points && `points ${found.points.key}`, found.leaderboard && `leaderboard ${found.leaderboard.key}`,
  ].filter((x): x is string => typeof x === 'string');
  if (what.length === 0) {
    print(`nothing of run ${o.runId} is left (loadtest-${o.runId})`);
    return 0;
  }
  const left = await cleanUp(o.admin, found);
  if (left.length > 0) {
    print(`could not remove: ${left.join('; ')}`);
    return 1;
  }
  print(`removed: ${what.join(', ')}`);
  return 0;
}
