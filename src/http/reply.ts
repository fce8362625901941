import type { Reply } from './server.js';

export function json(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value) };
}

export function ok(value: unknown): Reply {
  return { status: 200, body: JSON.stringify(value) };
}
