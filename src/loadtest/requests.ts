/**
 * The requests of each operation of the load test, as a customer backend sends them: metric
 * events (`POST /api/metrics/<metric>/event`, or `POST /admin/v1/metrics/events` in batches), and
 * the reads an app makes of a user, their streak, their points and a leaderboard.
 */
import type { GeneratorConfig, OperationName } from './protocol.js';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body: string | null;
}

/** The URL's path prefix ('' for none), without a trailing slash. */
export function basePath(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, '');
}

/** The operations whose reads need a user that exists (404 otherwise). */
export const READS_OF_A_USER: ReadonlySet<OperationName> = new Set(['user', 'streak', 'points']);

/**
 * Request of `op` for user `user` (its number). `base` is the URL's path prefix.
 */
export function requestOf(op: OperationName, c: GeneratorConfig, base: string, user: number): RequestSpec {
  const id = encodeURIComponent(`${c.userPrefix}${user}`);
  switch (op) {
    case 'event':
      return { method: 'POST', path: `${base}/api/metrics/${encodeURIComponent(c.metric)}/event`, body: `{"user":{"id":"${c.userPrefix}${user}"},"value":1}` };
    case 'batch': {
      const items: string[] = [];
      // The batch's users: consecutive numbers from a random start, so one batch names each once.
      for (let k = 0; k < c.batch; k++) items.push(`{"key":${JSON.stringify(c.metric)},"user":{"id":"${c.userPrefix}${(user + k) % c.users}"},"value":1}`);
      return { method: 'POST', path: `${base}/admin/v1/metrics/events`, body: `[${items.join(',')}]` };
    }
    case 'user':
      return { method: 'GET', path: `${base}/api/users/${id}`, body: null };
    case 'streak':
      return { method: 'GET', path: `${base}/api/users/${id}/streak`, body: null };
    case 'points':
      return { method: 'GET', path: `${base}/api/users/${id}/points/${encodeURIComponent(c.points ?? '')}`, body: null };
    case 'leaderboard':
      return { method: 'GET', path: `${base}/api/leaderboards/${encodeURIComponent(c.leaderboard ?? '')}`, body: null };
  }
}

/** Draws an operation from the mix (weights need not sum to anything in particular). */
export function drawOperation(mix: GeneratorConfig['mix'], random: number): OperationName {
  const total = mix.reduce((s, m) => s + m.weight, 0);
  let x = random * total;
  for (const m of mix) {
    x -= m.weight;
    if (x < 0) return m.name;
  }
  return mix[mix.length - 1]!.name;
}
