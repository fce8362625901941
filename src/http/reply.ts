import type { Reply, Request } from './server.js';

export function json(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value) };
}

export function ok(value: unknown): Reply {
  return { status: 200, body: JSON.stringify(value) };
}

/** A request's query parameters, as a handler reads them. */
export interface Query {
  get(name: string): string | null;
  getAll(name: string): string[];
}

/**
 * The request's query, parsed once. A handler reads only the parameters its route's description
 * lists (src/http/route-doc.ts), so the OpenAPI document names every one: reading another is a bug,
 * thrown as one (a 500), which any test of the route meets.
 */
export function queryOf(req: Request): Query {
  const params = new URLSearchParams(req.query);
  const listed = (name: string): void => {
    if (!req.queryNames.has(name)) throw new Error(`${req.method} ${req.url} reads query parameter "${name}", which its route's description does not list`);
  };
  return {
    get(name) {
      listed(name);
      return params.get(name);
    },
    getAll(name) {
      listed(name);
      return params.getAll(name);
    },
  };
}
