/**
 * The breakdown group of a board's rankings: a field per breakdown attribute, labelled by its name,
 * offering the values seen among the tenant's users (the user directory's first page,
 * GET /admin/v1/users) and starting at the first of them, so a grouped board's rankings show at
 * once; any other value may be typed. The Application API takes the group as `key:value` pairs
 * (`userAttributes`), which `groupQuery` makes; null while a value is missing.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { Field } from '../../form.js';
import type { AttributeView, UserListView } from '../../types.js';

/** A board's breakdown attribute, by its key (what the query names) and its name (what the page shows). */
export type GroupAttribute = Pick<AttributeView, 'id' | 'key' | 'name'>;

/** The `userAttributes` of a group: every attribute's value, or null while one is missing or holds a comma. */
export function groupQuery(attributes: GroupAttribute[], values: Record<string, string>): string | null {
  const given = attributes.map((a) => (values[a.key] ?? '').trim());
  if (given.some((v) => v === '' || v.includes(','))) return null;
  return attributes.map((a, i) => `${a.key}:${given[i]}`).join(',');
}

/** The values of each attribute seen among the tenant's users (sorted), read once. */
export function useSeenValues(session: Session, attributes: GroupAttribute[]): Record<string, string[]> | null {
  const [seen, setSeen] = useState<Record<string, string[]> | null>(attributes.length === 0 ? {} : null);
  useEffect(() => {
    if (attributes.length === 0) return;
    let live = true;
    call<UserListView>(session, 'GET', '/admin/v1/users?limit=100').then((r) => r.body.users, () => []).then((users) => {
      const out: Record<string, string[]> = {};
      for (const a of attributes) {
        out[a.key] = [...new Set(users.map((u) => u.attributes[a.key]).filter((v): v is string => v !== undefined && !v.includes(',')))].sort();
      }
      if (live) setSeen(out);
    });
    return () => { live = false; };
  }, [session.key, session.tenant, attributes.map((a) => a.key).join()]);
  return seen;
}

export function GroupFields(props: {
  attributes: GroupAttribute[]; seen: Record<string, string[]>; values: Record<string, string>; onChange: (values: Record<string, string>) => void;
}) {
  const { attributes, seen, values } = props;
  return (
    <>
      {attributes.map((a) => {
        const id = `run-group-${a.key}`;
        const v = values[a.key] ?? '';
        const known = seen[a.key] ?? [];
        return (
          <Field key={a.key} id={id} label={`Group: ${a.name}`} error={v.includes(',') ? 'A group\'s value cannot hold a comma.' : ''}>
            <input id={id} list={`${id}-seen`} value={v} aria-describedby={`${id}-hint ${id}-error`}
              onInput={(e) => props.onChange({ ...values, [a.key]: e.currentTarget.value })} />
            <datalist id={`${id}-seen`}>{known.map((s) => <option key={s} value={s} />)}</datalist>
            <p class="hint" id={`${id}-hint`}>
              {known.length === 0 ? `Users are ranked apart by their ${a.name}; no user has one yet: type a value.`
                : `Users are ranked apart by their ${a.name}: ${known.join(', ')}.`}
            </p>
          </Field>
        );
      })}
    </>
  );
}
