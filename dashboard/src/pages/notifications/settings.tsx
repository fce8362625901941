/** The notification settings (GET/PUT /admin/v1/notifications/settings), read and saved whole; a refusal under its field. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { Field, fieldOf, fieldSetter, SaveFooter } from '../../form.js';
import type { NotificationSettingsView } from '../../types.js';

const FIELDS = ['controlRatio', 'defaultTimeZone', 'from', 'replyTo', 'aggregation', 'publicUrl'];

export function NotificationSettings({ session }: { session: Session }) {
  const [form, setForm] = useState({ controlRatio: '0', defaultTimeZone: '', from: '', replyTo: '', aggregation: 'weekly', publicUrl: '' });
  const [state, setState] = useState({ loaded: false, saved: false, errors: {} as Record<string, string> });
  const set = fieldSetter(form, setForm);
  useEffect(() => {
    void call<NotificationSettingsView>(session, 'GET', '/admin/v1/notifications/settings').then(({ body: s }) => {
      setForm({
        controlRatio: String(s.controlRatio), defaultTimeZone: s.defaultTimeZone, from: s.email.from ?? '', replyTo: s.email.replyTo ?? '',
        aggregation: s.recap.aggregation, publicUrl: s.publicUrl ?? '',
      });
      setState({ loaded: true, saved: false, errors: {} });
    }, (err: Error) => setState({ loaded: true, saved: false, errors: { form: err.message } }));
  }, [session.key]);
  const orNull = (v: string) => (v.trim() === '' ? null : v.trim());
  const save = async (e: Event) => {
    e.preventDefault();
    setState({ loaded: true, saved: false, errors: {} });
    try {
      await call(session, 'PUT', '/admin/v1/notifications/settings', {
        controlRatio: Number(form.controlRatio), defaultTimeZone: form.defaultTimeZone,
        email: { from: orNull(form.from), replyTo: orNull(form.replyTo) }, recap: { aggregation: form.aggregation }, publicUrl: orNull(form.publicUrl),
      });
      setState({ loaded: true, saved: true, errors: {} });
    } catch (err) {
      const message = (err as Error).message;
      setState({ loaded: true, saved: false, errors: { [fieldOf(message, FIELDS) ?? 'form']: message } });
    }
  };
  const { errors } = state;
  return (
    <form class="card" onSubmit={save} aria-label="Notification settings">
      <h2>Settings</h2>
      <fieldset disabled={!state.loaded} class="plain">
        <div class="row">
          <Field id="ns-from" label="Emails from" error={errors.from}>
            <input id="ns-from" value={form.from} placeholder="Acme <hello@acme.test>" onInput={set('from')} />
          </Field>
          <Field id="ns-reply" label="Reply to" error={errors.replyTo}>
            <input id="ns-reply" value={form.replyTo} onInput={set('replyTo')} />
          </Field>
          <Field id="ns-url" label="Public URL (the links in emails)" error={errors.publicUrl}>
            <input id="ns-url" value={form.publicUrl} placeholder="https://laurel.acme.test" onInput={set('publicUrl')} />
          </Field>
        </div>
        <div class="row">
          <Field id="ns-zone" label="Time zone of users without one" error={errors.defaultTimeZone}>
            <input id="ns-zone" value={form.defaultTimeZone} required onInput={set('defaultTimeZone')} />
          </Field>
          <Field id="ns-recap" label="Recaps" error={errors.aggregation}>
            <select id="ns-recap" value={form.aggregation} onChange={set('aggregation')}><option value="weekly">Weekly</option><option value="monthly">Monthly</option></select>
          </Field>
          <Field id="ns-control" label="Control group (share of new users, 0 to 1)" error={errors.controlRatio}>
            <input id="ns-control" type="number" min="0" max="1" step="any" value={form.controlRatio} required onInput={set('controlRatio')} />
          </Field>
        </div>
        <SaveFooter state={state} label="Save the settings" />
      </fieldset>
    </form>
  );
}
