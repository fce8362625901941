/**
 * Webhooks: the endpoints, a form that creates one (its signing secret shown once), turning one
 * on and off, editing its name, URL and events (webhooks/edit.tsx), rotating its secret (the new one
 * shown once), and the deliveries of the one chosen (webhooks/deliveries.tsx) with retry. Turning
 * one off and rotating a secret are asked first.
 */
import { useState } from 'preact/hooks';
import { call, updateOne, type Session } from '../api.js';
import { useConfirm } from '../confirm.js';
import { createFromForm, Field, fieldSetter } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { WebhookView as Webhook } from '../types.js';
import { Deliveries } from './webhooks/deliveries.js';
import { EditWebhook } from './webhooks/edit.js';
import { EventChecks } from './webhooks/events.js';

export function WebhooksPage({ session }: { session: Session }) {
  const list = useList<Webhook>(session, '/admin/v1/webhooks?limit=100');
  const [form, setForm] = useState({ name: '', url: '' });
  const [events, setEvents] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [fresh, setFresh] = useState<Webhook | null>(null);
  const [chosen, setChosen] = useState<Webhook | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const set = fieldSetter(form, setForm);
  const [dialog, confirm] = useConfirm();
  const submit = async (e: Event) => {
    e.preventDefault();
    setFresh(null);
    if (events.length === 0) return setErrors({ events: 'Choose one event or more.' });
    const created = await createFromForm<Webhook>(session, '/admin/v1/webhooks', { ...form, events }, ['url', 'name', 'events'], setErrors);
    if (created === null) return;
    setFresh(created);
    setForm({ name: '', url: '' });
    setEvents([]);
    await list.reload();
  };
  /** A new signing secret, shown once; the old one signs beside it for 24 hours. */
  const rotate = async (w: Webhook) => {
    if (!await confirm({
      title: `Rotate the signing secret of ${w.name}?`, action: 'Rotate secret',
      body: <p>A new secret signs every delivery from now on, shown once. The old one signs beside it for 24 hours only: a receiver that still checks with it after that refuses every delivery.</p>,
    })) return;
    try {
      setFresh((await call<Webhook>(session, 'POST', `/admin/v1/webhooks/${encodeURIComponent(w.id)}/secret`)).body);
      setErrors({});
    } catch (err) {
      setErrors({ list: (err as Error).message });
    }
  };
  const toggle = async (w: Webhook) => {
    if (w.status === 'active' && !await confirm({
      title: `Turn off the webhook ${w.name}?`, action: 'Turn off',
      body: <p>No delivery is made to {w.url} while it is off, and the events that happen meanwhile are not sent to it later.</p>,
    })) return;
    try {
      setErrors({ list: (await updateOne(session, '/admin/v1/webhooks', { id: w.id, status: w.status === 'active' ? 'inactive' : 'active' })).error });
    } catch (err) {
      setErrors({ list: (err as Error).message });
    }
    await list.reload();
  };
  const edited = list.items?.find((w) => w.id === editing);
  return (
    <section>
      <h1>Webhooks</h1>
      <form class="card" onSubmit={submit} aria-label="New webhook">
        <h2>New webhook endpoint</h2>
        <Field id="webhook-name" label="Name" error={errors.name}>
          <input id="webhook-name" value={form.name} required onInput={set('name')} />
        </Field>
        <Field id="webhook-url" label="URL" error={errors.url}>
          <input id="webhook-url" type="url" value={form.url} required placeholder="https://example.com/laurel" onInput={set('url')} />
        </Field>
        <EventChecks id="webhook-events" value={events} onChange={setEvents} error={errors.events} />
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <button type="submit">Create webhook</button>
      </form>
      {fresh?.secret !== undefined && (
        <div class="card secret" role="region" aria-label="The signing secret">
          <h2>The signing secret of {fresh.name}</h2>
          <p><code id="webhook-secret">{fresh.secret}</code></p>
          <p><strong>Copy it now:</strong> your receiver checks each delivery's signature with it, and it will not be shown again.
            After a rotation the old secret still signs beside it for 24 hours.</p>
          <button type="button" class="small" onClick={() => setFresh(null)}>I have copied it</button>
        </div>
      )}
      <ItemTable list={list} empty="No webhook endpoints yet." class="webhooks" error={errors.list ?? ''}
        columns={[
          { head: 'Name', cell: (w) => w.name }, { head: 'URL', cell: (w) => w.url, class: 'wrap' },
          { head: 'Events', cell: (w) => w.events.join(', '), class: 'wrap' }, { head: 'Status', cell: (w) => w.status },
        ]}
        actions={(w) => (
          <>
            <button type="button" class="small" aria-label={`${w.status === 'active' ? 'Turn off' : 'Turn on'} ${w.name}`} onClick={() => toggle(w)}>
              {w.status === 'active' ? 'Turn off' : 'Turn on'}
            </button>
            <button type="button" class="small" aria-label={`Edit webhook ${w.name}`} onClick={() => setEditing(w.id)}>Edit</button>
            <button type="button" class="small" aria-label={`Rotate the secret of ${w.name}`} onClick={() => rotate(w)}>Rotate secret</button>
            <button type="button" class="small" aria-label={`Deliveries to ${w.name}`} onClick={() => setChosen(w)}>Deliveries</button>
          </>
        )} />
      {edited !== undefined && (
        <EditWebhook key={edited.id} session={session} webhook={edited} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {chosen !== null && <Deliveries key={chosen.id} session={session} webhook={chosen} />}
      {dialog}
    </section>
  );
}
