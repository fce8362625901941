/**
 * A setup file of every test file (vitest.config.ts): every answer the official SDK gets is
 * checked against the 1.21.1 response schemas (test/support/openapi.ts). The SDK calls the global
 * `fetch`, so it is wrapped here; a call is the SDK's when it carries `X-Fern-Language` (the
 * server's own `request()` checks its answers itself, test/support/server.ts). The SDK goes on with
 * whatever it got (it would turn an exception into an error of its own); the test during which an
 * answer did not conform fails after it, saying what was wrong (and from a hook, the file does).
 */
import { afterAll, afterEach } from 'vitest';
import { checkAnswer, SpecViolation } from './openapi.js';

/** Violations seen on the SDK's calls since the last report. */
const violations: string[] = [];

const original = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const res = await original(input, init);
  if (!new Headers(init?.headers).has('x-fern-language')) return res;
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const text = await res.clone().text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // checked as text
  }
  const v = checkAnswer({ method: init?.method ?? 'GET', path: url.pathname + url.search, status: res.status, body });
  if (v.kind === 'invalid') violations.push(v.message);
  return res;
};

/** Takes the violations seen so far (for a test that provokes one on purpose). */
export function takeSdkViolations(): string[] {
  return violations.splice(0);
}

function report(): void {
  if (violations.length === 0) return;
  const seen = violations.splice(0);
  throw new SpecViolation(`the SDK got ${seen.length} answer(s) outside the 1.21.1 specs:\n${seen.join('\n')}`);
}
afterEach(report);
afterAll(report);
