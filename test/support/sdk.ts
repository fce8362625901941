/**
 * Helpers for driving laurel through the official SDK (`@trophyso/node@1.0.42`) exactly as a user
 * would, plus a recorder of what actually went over the wire (the SDK hides statuses, headers and
 * retries from its callers). What the SDK has no call for is set up through the Admin API
 * (test/support/admin.ts).
 *
 * Every answer the SDK gets is checked against the 1.21.1 response schemas on the wire
 * (test/support/wire-check.ts, a setup file of every test file).
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
