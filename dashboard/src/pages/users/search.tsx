/**
 * The tenant's users, searched (GET /admin/v1/users, the user directory the log drain keeps): by id
 * prefix, email prefix and a user attribute's value, a page of 25 at a time in id order, Next page
 * and Previous page; each row opens the user's profile.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../../api.js';
import { Pager, useCursorPages } from '../../cursor-pages.js';
import { Field } from '../../form.js';
import { ItemTable } from '../../list.js';
import type { AttributeView, UserListItem, UserListView } from '../../types.js';
import { moment } from '../../words.js';

const PAGE = 25;

interface Search {
  idPrefix: string;
  email: string;
  attribute: string;
  value: string;
}

const EMPTY: Search = { idPrefix: '', email: '', attribute: '', value: '' };

/** The list's query for a search and the page after `after`. */
export function queryOf(s: Search, after: string): string {
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (s.idPrefix.trim() !== '') q.set('idPrefix', s.idPrefix.trim());
  if (s.email.trim() !== '') q.set('email', s.email.trim());
  if (s.attribute !== '' && s.value.trim() !== '') q.set('userAttributes', `${s.attribute}:${s.value.trim()}`);
  if (after !== '') q.set('after', after);
  return q.toString();
}

export function UserSearch(props: { session: Session; attributes: Pick<AttributeView, 'id' | 'key' | 'name'>[]; onOpen: (id: string) => void }) {
  const { session, attributes, onOpen } = props;
  const [form, setForm] = useState(EMPTY);
  // The search shown: the form's once submitted.
  const [search, setSearch] = useState(EMPTY);
  const pages = useCursorPages<UserListView, UserListItem>(session, (after) => `/admin/v1/users?${queryOf(search, after)}`, (p) => p.users,
    [session.tenant, search]);
  const submit = (e: Event) => {
    e.preventDefault();
    setSearch({ ...form });
    pages.restart();
  };
  const set = (field: keyof Search) => (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value });
  return (
    <section class="card" aria-label="Find users">
      <h2>Find users</h2>
      <form class="row" onSubmit={submit} aria-label="Search users">
        <Field id="search-id" label="Id starts with">
          <input id="search-id" value={form.idPrefix} onInput={set('idPrefix')} />
        </Field>
        <Field id="search-email" label="Email starts with">
          <input id="search-email" value={form.email} onInput={set('email')} />
        </Field>
        <Field id="search-attribute" label="With the attribute">
          <select id="search-attribute" value={form.attribute} onChange={set('attribute')}>
            <option value="">Any</option>
            {attributes.map((a) => <option key={a.id} value={a.key}>{a.name}</option>)}
          </select>
        </Field>
        <Field id="search-value" label="Of the value">
          <input id="search-value" value={form.value} disabled={form.attribute === ''} required={form.attribute !== ''} onInput={set('value')} />
        </Field>
        <button type="submit">Search</button>
      </form>
      <p class="muted">Users show here a second or so after their first event or identification, with what it set.</p>
      <ItemTable list={pages.list} empty="No user matches." class="users" label="Users found"
        columns={[
          { head: 'Id', cell: (u) => <code>{u.id}</code>, class: 'wrap' }, { head: 'Name', cell: (u) => u.name ?? '—' },
          { head: 'Email', cell: (u) => u.email ?? '—', class: 'wrap' },
          { head: 'Attributes', cell: (u) => Object.entries(u.attributes).map(([k, v]) => `${k}: ${v}`).join(', ') || '—', class: 'wrap' },
          { head: 'First seen', cell: (u) => moment(u.firstSeen) }, { head: 'Last active', cell: (u) => u.lastActive ?? 'never' },
        ]}
        actions={(u) => <button type="button" class="small" aria-label={`Open user ${u.id}`} onClick={() => onOpen(u.id)}>Open</button>} />
      <Pager pages={pages} size={PAGE} noun="Users" />
    </section>
  );
}
