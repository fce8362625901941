/**
 * Lists read from the API: `useList` loads one (again when the session or tenant changes, or on
 * `reload`), `ListBox` shows it with its loading and empty states in a box that keeps its height.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from './api.js';

export interface Loaded<T> {
  /** null while loading. */
  items: T[] | null;
  /** The refusal of the last load ('' when it went through). */
  error: string;
  reload: () => Promise<void>;
}

/** GETs `path` (an array); `path` null: nothing to load yet (an empty list). */
export function useList<T>(session: Session, path: string | null): Loaded<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState('');
  const reload = async () => {
    if (path === null) return setItems([]);
    try {
      const r = await call<T[]>(session, 'GET', path);
      setItems(r.body);
      setError('');
    } catch (err) {
      setItems([]);
      setError((err as Error).message);
    }
  };
  useEffect(() => { setItems(null); void reload(); }, [session.key, session.tenant, path]);
  return { items, error, reload };
}

/** A list's box: "Loading…", the empty message, or the children (given the items); the load's error above. */
export function ListBox<T>(props: { list: Loaded<T>; empty: string; label?: string; children: (items: T[]) => ComponentChildren }) {
  const { items, error } = props.list;
  return (
    <div class="table-box" aria-label={props.label}>
      {error !== '' && <p class="error" role="alert">{error}</p>}
      {items === null ? <p class="muted">Loading…</p> : items.length === 0 ? <p class="muted">{props.empty}</p> : props.children(items)}
    </div>
  );
}

/** The Admin API's metrics, active ones only (for the forms' choices). */
export function useActiveMetrics(session: Session): { id: string; key: string; name: string }[] {
  const list = useList<{ id: string; key: string; name: string; status: string }>(session, '/admin/v1/metrics?limit=100');
  return (list.items ?? []).filter((m) => m.status === 'active');
}

type Named = { id: string; key: string; name: string };

/** The Admin API's attributes by kind (user, event), for the filters' choices. */
export function useAttributes(session: Session): { user: Named[]; event: Named[] } {
  const items = useList<Named & { type: string }>(session, '/admin/v1/attributes?limit=100').items ?? [];
  return { user: items.filter((a) => a.type === 'user'), event: items.filter((a) => a.type === 'event') };
}
