/**
 * Editing a webhook endpoint (PATCH /admin/v1/webhooks): its name, its URL (checked by the Admin
 * API as when it was made: http or https, and a public address) and the events it is sent. Its
 * secret stays (Rotate secret changes it).
 */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { Field } from '../../form.js';
import type { WebhookView as Webhook } from '../../types.js';
import { EventChecks } from './events.js';


export function EditWebhook(props: { session: Session; webhook: Webhook; onSaved: () => unknown; onClose: () => void }) {
  const { webhook: w } = props;
  const { form, set, put, errors, state } = useEditForm(props.session, '/admin/v1/webhooks', w.id, { name: w.name, url: w.url, events: w.events as string[] },
    (f) => f, ['url', 'name', 'events'], props.onSaved);
  const p = 'webhook-edit';
  return (
    <EditCard label={`Edit webhook ${w.name}`} title={`Edit ${w.name}`} state={state} onClose={props.onClose}>
      <Field id={`${p}-name`} label="Name" error={errors.name}>
        <input id={`${p}-name`} value={form.name} required onInput={set('name')} />
      </Field>
      <Field id={`${p}-url`} label="URL" error={errors.url}>
        <input id={`${p}-url`} type="url" value={form.url} required onInput={set('url')} />
      </Field>
      <EventChecks id={`${p}-events`} value={form.events} onChange={(events) => put('events', events)} error={errors.events} />
    </EditCard>
  );
}
