/**
 * A list read a page at a time, each page giving the cursor of the next (`next`, null on the last):
 * `useCursorPages` loads the page of the cursor last followed (again when the session or what
 * `deps` name changes), `Pager` goes forward and back, saying which items are shown.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Session } from './api.js';
import type { Loaded } from './list.js';

export interface CursorPages<T> {
  list: Loaded<T>;
  /** The cursors of the pages read so far, the first page's ''. */
  cursors: string[];
  /** The cursor of the page after the one shown; null on the last, and while loading. */
  next: string | null;
  /** Back to the first page (a new search). */
  restart(): void;
  forward(): void;
  back(): void;
}

/** The pages of `pathOf(cursor)`, each answer's items taken by `itemsOf`. */
export function useCursorPages<P extends { next: string | null }, T>(
  session: Session, pathOf: (cursor: string) => string, itemsOf: (page: P) => T[], deps: unknown[],
): CursorPages<T> {
  const [cursors, setCursors] = useState<string[]>(['']);
  const [page, setPage] = useState<{ items: T[]; next: string | null } | null>(null);
  const [error, setError] = useState('');
  const cursor = cursors[cursors.length - 1];
  // The answer of the last load asked only: an earlier one answering after it is dropped.
  const asked = useRef(0);
  const load = async () => {
    const n = ++asked.current;
    setPage(null);
    try {
      const answer = (await call<P>(session, 'GET', pathOf(cursor))).body;
      if (n !== asked.current) return;
      setPage({ items: itemsOf(answer), next: answer.next });
      setError('');
    } catch (err) {
      if (n !== asked.current) return;
      setPage({ items: [], next: null });
      setError((err as Error).message);
    }
  };
  useEffect(() => { void load(); }, [session.key, ...deps, cursor]);
  return {
    list: { items: page?.items ?? null, error, reload: load },
    cursors,
    next: page?.next ?? null,
    restart: () => setCursors(['']),
    forward: () => { if (page?.next != null) setCursors([...cursors, page.next]); },
    back: () => setCursors(cursors.slice(0, -1)),
  };
}

/** Previous page, which items are shown (`<noun> 26 to 50`), Next page. */
export function Pager<T>({ pages, size, noun }: { pages: CursorPages<T>; size: number; noun: string }) {
  const items = pages.list.items;
  const first = (pages.cursors.length - 1) * size + 1;
  return (
    <div class="pager">
      <button type="button" class="secondary" disabled={pages.cursors.length === 1} onClick={pages.back}>Previous page</button>
      <span class="muted" role="status">{items === null || items.length === 0 ? '' : `${noun} ${first} to ${first + items.length - 1}`}</span>
      <button type="button" class="secondary" disabled={pages.next === null} onClick={pages.forward}>Next page</button>
    </div>
  );
}
