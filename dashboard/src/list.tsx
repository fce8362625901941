/**
 * Lists read from the API: `useList` loads one (again when the session or tenant changes, or on
 * `reload`), `ListBox` shows it with its loading and empty states in a box that keeps its height,
 * and `ItemTable` shows one as a table: a column each, and a cell of actions on each row.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Session } from './api.js';
import type { AttributeView, MetricView } from './types.js';

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
  // The answer of the last load asked only: one for a path or tenant left meanwhile is dropped.
  const asked = useRef(0);
  const reload = async () => {
    const n = ++asked.current;
    if (path === null) return setItems([]);
    try {
      const r = await call<T[]>(session, 'GET', path);
      if (n !== asked.current) return;
      setItems(r.body);
      setError('');
    } catch (err) {
      if (n !== asked.current) return;
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

/** A column of an ItemTable: its heading, and what each row shows in it. */
export interface Column<T> {
  head: string;
  cell: (item: T) => ComponentChildren;
  /** A cell's class (`wrap`: long text breaks). */
  class?: string;
}

/**
 * A list as a table, the pages' one table-and-actions block: the refusal of the last action above
 * it (`error`), the list's loading and empty states, a column each, and the row's `actions` (its
 * buttons) in the last cell.
 */
export function ItemTable<T extends { id: string }>(props: {
  list: Loaded<T>; empty: string; class: string; label?: string; columns: Column<T>[];
  actions?: (item: T) => ComponentChildren; error?: string; errorId?: string;
  /** The rows' order, when not the API's. */
  sort?: (a: T, b: T) => number;
}) {
  const { columns, actions, sort } = props;
  return (
    <>
      {props.error !== undefined && <p class="error" role="alert" id={props.errorId}>{props.error}</p>}
      <ListBox list={props.list} empty={props.empty} label={props.label}>
        {(items) => (
          <table class={props.class}>
            <thead><tr>{columns.map((c) => <th key={c.head}>{c.head}</th>)}{actions !== undefined && <th><span class="sr-only">Actions</span></th>}</tr></thead>
            <tbody>{(sort === undefined ? items : [...items].sort(sort)).map((item) => (
              <tr key={item.id}>
                {columns.map((c) => <td key={c.head} class={c.class}>{c.cell(item)}</td>)}
                {actions !== undefined && <td class="actions">{actions(item)}</td>}
              </tr>
            ))}</tbody>
          </table>
        )}
      </ListBox>
    </>
  );
}

/** The Admin API's metrics, active ones only (for the forms' choices). */
export function useActiveMetrics(session: Session): MetricView[] {
  const list = useList<MetricView>(session, '/admin/v1/metrics?limit=100');
  return (list.items ?? []).filter((m) => m.status === 'active');
}

/** The Admin API's attributes by kind (user, event), for the filters' choices. */
export function useAttributes(session: Session): { user: AttributeView[]; event: AttributeView[] } {
  const items = useList<AttributeView>(session, '/admin/v1/attributes?limit=100').items ?? [];
  return { user: items.filter((a) => a.type === 'user'), event: items.filter((a) => a.type === 'event') };
}
