/**
 * The dashboard's calls: the Admin API and the Application API of the laurel serving the page, with
 * the admin key the user signed in with (kept in sessionStorage only) and the tenant chosen.
 */
import type { Issue } from './types.js';

export interface Session {
  key: string;
  /** The Tenant-ID header: a tenant's customerId ('' for the default tenant). */
  tenant: string;
}

export interface Answer<T> {
  status: number;
  body: T;
}

/** An issue of a batch answer (the Admin API's `{ created, issues }`). */
export type { Issue };

/** A refusal: the status and the server's `error`. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const SESSION = 'laurel.session';

export function savedSession(): Session | null {
  const raw = sessionStorage.getItem(SESSION);
  return raw === null ? null : (JSON.parse(raw) as Session);
}

export function saveSession(session: Session | null): void {
  if (session === null) sessionStorage.removeItem(SESSION);
  else sessionStorage.setItem(SESSION, JSON.stringify(session));
}

/** The writes in flight, by session, method, path and body. */
const writing = new Map<string, Promise<Answer<unknown>>>();

/**
 * One call; a 4xx or 5xx throws an ApiError with the server's message. A write asked again while
 * the same one is in flight (a double click on a form's or a row's button) shares the first's
 * answer instead of being sent twice (a copy refused as a duplicate, a move refused as made).
 */
export function call<T>(session: Session, method: string, path: string, body?: unknown): Promise<Answer<T>> {
  if (method === 'GET') return send<T>(session, method, path, body);
  const id = JSON.stringify([session.key, session.tenant, method, path, body ?? null]);
  let pending = writing.get(id);
  if (pending === undefined) {
    pending = send<unknown>(session, method, path, body).finally(() => writing.delete(id));
    writing.set(id, pending);
  }
  return pending as Promise<Answer<T>>;
}

async function send<T>(session: Session, method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'X-API-KEY': session.key };
  if (session.tenant !== '') headers['Tenant-ID'] = session.tenant;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const parsed = text === '' ? null : (JSON.parse(text) as unknown);
  if (res.status >= 400) {
    const error = (parsed as { error?: string } | null)?.error ?? `HTTP ${res.status}`;
    throw new ApiError(res.status, error);
  }
  return { status: res.status, body: parsed as T };
}

/** Creates one item of a batch resource: the created entity, or the issues that refused it. */
export async function createOne<T>(session: Session, path: string, item: unknown): Promise<{ created: T | null; issues: Issue[] }> {
  const { body } = await call<{ created: T[]; issues: Issue[] }>(session, 'POST', path, [item]);
  return { created: body.created[0] ?? null, issues: body.issues };
}

/** Updates one item of a batch resource (PATCH `[{ id, ...changes }]`): the updated entity, or the refusal's message. */
export async function updateOne<T>(session: Session, path: string, changes: { id: string } & Record<string, unknown>): Promise<{ updated: T | null; error: string }> {
  const { body } = await call<{ updated: T[]; issues: Issue[] }>(session, 'PATCH', path, [changes]);
  return { updated: body.updated[0] ?? null, error: body.issues[0]?.message ?? '' };
}

/** Deletes one item of a batch resource (DELETE `?ids=`): '' when it went, else the refusal's message. */
export async function deleteOne(session: Session, path: string, id: string): Promise<string> {
  const { body } = await call<{ deleted: unknown[]; issues: Issue[] }>(session, 'DELETE', `${path}?ids=${encodeURIComponent(id)}`);
  return body.deleted.length > 0 ? '' : body.issues[0]?.message ?? 'Not deleted';
}
