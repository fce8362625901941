/**
 * Helpers for driving laurel through the official SDK (`@trophyso/node@1.0.42`) exactly as a user
 * would, plus a recorder of what actually went over the wire (the SDK hides statuses, headers and
 * retries from its callers).
 */
import { TrophyApiClient } from '@trophyso/node';
import type { TestServer } from './server.js';

/** An SDK client pointed at a test server; `apiBase` defaults to `<url>/v1`. */
export function sdkClient(s: TestServer, opts: { apiBase?: string; apiKey?: string } = {}): TrophyApiClient {
  return new TrophyApiClient({
    apiKey: opts.apiKey ?? s.adminKey,
    environment: { api: opts.apiBase ?? `${s.url}/v1`, admin: `${s.url}/admin/v1` },
  });
}

/** Waits for a call that must fail and returns what it threw. */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export interface WireCall {
  method: string;
  url: string;
  /** Path and query as sent (still percent-encoded). */
  path: string;
  /** Request headers, lower-cased names. */
  headers: Record<string, string>;
  body: string | undefined;
  status: number;
  response: string;
}

/**
 * Records every request made through the global `fetch` (which the SDK uses on Node 18+) while
 * installed.
 */
export class WireRecorder {
  readonly calls: WireCall[] = [];
  private original: typeof fetch | null = null;

  install(): void {
    if (this.original) return;
    const original = globalThis.fetch;
    this.original = original;
    const calls = this.calls;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((v, k) => { headers[k] = v; });
      const res = await original(input, init);
      const response = await res.clone().text();
      const u = new URL(url);
      calls.push({
        method: (init?.method ?? 'GET').toUpperCase(),
        url,
        path: u.pathname + u.search,
        headers,
        body: typeof init?.body === 'string' ? init.body : undefined,
        status: res.status,
        response,
      });
      return res;
    };
  }

  uninstall(): void {
    if (this.original) globalThis.fetch = this.original;
    this.original = null;
  }

  /** A position in the log, for `since`. */
  mark(): number {
    return this.calls.length;
  }

  /** Calls recorded after `mark`. */
  since(mark: number): WireCall[] {
    return this.calls.slice(mark);
  }

  /** Runs `fn` and returns its result with the calls it made. */
  async capture<T>(fn: () => Promise<T>): Promise<{ result: T; calls: WireCall[] }> {
    const m = this.mark();
    const result = await fn();
    return { result, calls: this.since(m) };
  }

  /** Runs `fn`, which must fail, and returns its error with the calls it made. */
  async captureRejection(fn: () => Promise<unknown>): Promise<{ error: unknown; calls: WireCall[] }> {
    const m = this.mark();
    const error = await rejectionOf(fn());
    return { error, calls: this.since(m) };
  }
}

/** An item of `POST /admin/v1/achievements`. */
export interface AchievementInput {
  name: string;
  key: string;
  trigger: 'metric' | 'streak' | 'api' | 'achievement';
  description?: string | null;
  badge?: { url: string } | null;
  metricId?: string;
  metricValue?: number;
  streakLength?: number;
  achievementIds?: string[];
  userAttributes?: { attributeId: string; attributeValue: string }[];
  eventAttributes?: { attributeId: string; attributeValue: string }[];
  status?: 'active' | 'inactive' | 'locked' | 'archived';
}

/**
 * Creates a batch through an Admin API create endpoint (`{ created, issues }`); fails unless every
 * item was created. Returns the created entities' ids by key.
 */
export async function adminCreate(s: TestServer, path: string, items: { key: string }[]): Promise<Record<string, string>> {
  const r = await s.request('POST', path, { body: items });
  if (r.status !== 201 || r.body.issues?.length !== 0 || r.body.created?.length !== items.length) {
    throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  }
  return Object.fromEntries((r.body.created as { key: string; id: string }[]).map((e) => [e.key, e.id]));
}

/** Creates achievements through the Admin API; returns their ids by key. */
export function createAchievements(s: TestServer, items: AchievementInput[]): Promise<Record<string, string>> {
  return adminCreate(s, '/admin/v1/achievements', items);
}

/** Creates attributes (named after their keys) through the Admin API; returns their ids by key. */
export function createAttributes(s: TestServer, type: 'user' | 'event', ...keys: string[]): Promise<Record<string, string>> {
  return adminCreate(s, '/admin/v1/attributes', keys.map((key) => ({ name: key, key, type })));
}

/** Changes entities through an Admin API update endpoint (`{ updated, issues }`); fails on any issue. */
export async function adminUpdate(s: TestServer, path: string, changes: ({ id: string } & Record<string, unknown>)[]): Promise<void> {
  const r = await s.request('PATCH', path, { body: changes });
  if (r.status !== 200 || r.body.issues?.length !== 0 || r.body.updated?.length !== changes.length) {
    throw new Error(`PATCH ${path}: ${r.status} ${r.text}`);
  }
}

/** A list of SDK achievement objects by key (every laurel achievement has one). */
export function byKey<T extends { key?: string }>(list: T[]): Record<string, T> {
  const out: Record<string, T> = {};
  for (const a of list) {
    if (a.key === undefined) throw new Error(`achievement without a key: ${JSON.stringify(a)}`);
    if (a.key in out) throw new Error(`achievement "${a.key}" listed twice`);
    out[a.key] = a;
  }
  return out;
}

/** The streak rule of `PUT /admin/v1/streaks/settings` (laurel's own Admin resource). */
export interface StreakSettingsInput {
  frequency: 'daily' | 'weekly' | 'monthly';
  evaluation?: 'all' | 'any';
  metrics: { metricId: string; threshold: number }[];
  freezes?: { initial: number; max: number; autoEarnInterval: number; autoEarnAmount: number } | null;
}

/** Sets the streak rule through the Admin API (the SDK has no call for it); fails unless 200. */
export async function putStreakSettings(s: TestServer, settings: StreakSettingsInput): Promise<void> {
  const r = await s.request('PUT', '/admin/v1/streaks/settings', { body: settings });
  if (r.status !== 200) throw new Error(`PUT /admin/v1/streaks/settings: ${r.status} ${r.text}`);
}
