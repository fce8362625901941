/**
 * Voiding one of a user's events by its id (`POST /admin/v1/events/void`, with the user's id, so
 * only their partition is read): what it counted and the points it awarded are taken back and the
 * boards move. The answer is said under the form (the value taken off, the total after, the points
 * taken back by system); an issue (an id not found, an event voided already) under the event id.
 * `changed` hears of a void, so the page reads the user again.
 */
import { useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { errorsOf, Field } from '../../form.js';
import type { Issue, VoidedView } from '../../types.js';

/** A void's answer in words: "3 of likes on 2026-06-01 taken off (total now 0); points: karma -6". */
export function voidedWords(v: VoidedView): string {
  const points = Object.entries(v.points).map(([system, n]) => `${system} ${n}`).join(', ');
  return `${v.value} of ${v.metric} on ${v.date} taken off (total now ${v.total})${points === '' ? '' : `; points: ${points}`}.`;
}

export function VoidEvent({ session, userId, changed }: { session: Session; userId: string; changed: () => unknown }) {
  const [form, setForm] = useState({ eventId: '', reason: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setDone('');
    try {
      const { body } = await call<{ voided: VoidedView[]; issues: Issue[] }>(session, 'POST', '/admin/v1/events/void',
        [{ eventId: form.eventId.trim(), reason: form.reason, userId }]);
      // An issue names no field: it concerns the event the id names.
      setErrors(Object.fromEntries(Object.entries(errorsOf(body.issues, ['reason'])).map(([k, v]) => [k === 'form' ? 'eventId' : k, v])));
      const voided = body.voided[0];
      if (voided === undefined) return;
      setDone(`Voided: ${voidedWords(voided)}`);
      setForm({ eventId: '', reason: '' });
      await changed();
    } catch (err) {
      setErrors({ form: (err as Error).message });
    }
  };
  return (
    <form class="row" aria-label="Void an event" onSubmit={submit}>
      <Field id="void-event-id" label="Event id (as its answer gave it)" error={errors.eventId}>
        <input id="void-event-id" value={form.eventId} required maxLength={64} onInput={(e) => setForm({ ...form, eventId: e.currentTarget.value })} />
      </Field>
      <Field id="void-reason" label="Reason for voiding" error={errors.reason}>
        <input id="void-reason" value={form.reason} required maxLength={500} onInput={(e) => setForm({ ...form, reason: e.currentTarget.value })} />
      </Field>
      <button type="submit">Void event</button>
      <p class="error" role="alert">{errors.form ?? ''}</p>
      <p class="muted" role="status">{done}</p>
    </form>
  );
}
