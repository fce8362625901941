/** Attributes (user or event): the list, and a form that creates one through the Admin API. */
import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { createFromForm, Field, fieldSetter, KeyField } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { AttributeView } from '../types.js';

export function AttributesPage({ session }: { session: Session }) {
  const list = useList<AttributeView>(session, '/admin/v1/attributes?limit=100');
  const [form, setForm] = useState({ name: '', key: '', type: 'user' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const created = await createFromForm<AttributeView>(session, '/admin/v1/attributes', form, ['key', 'name', 'type'], setErrors);
    if (created !== null) {
      setForm({ name: '', key: '', type: form.type });
      await list.reload();
    }
    setBusy(false);
  };

  return (
    <section>
      <h1>Attributes</h1>
      <p class="muted">User attributes (a plan, a country) filter achievements, triggers and boosts and group leaderboards; event attributes filter what an event counts toward.</p>
      <form class="card" onSubmit={submit} aria-label="New attribute">
        <h2>New attribute</h2>
        <Field id="attribute-name" label="Name" error={errors.name}>
          <input id="attribute-name" value={form.name} required onInput={set('name')} />
        </Field>
        <KeyField id="attribute-key" value={form.key} error={errors.key} onInput={set('key')} />
        <Field id="attribute-type" label="Kind" error={errors.type}>
          <select id="attribute-type" value={form.type} onChange={set('type')}>
            <option value="user">User attribute</option><option value="event">Event attribute</option>
          </select>
        </Field>
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit" disabled={busy}>Create attribute</button>
      </form>
      <ItemTable list={list} empty="No attributes yet." class="attributes" columns={[
        { head: 'Key', cell: (a) => <code>{a.key}</code> }, { head: 'Name', cell: (a) => a.name },
        { head: 'Kind', cell: (a) => (a.type === 'user' ? 'user attribute' : 'event attribute') },
      ]} />
    </section>
  );
}
