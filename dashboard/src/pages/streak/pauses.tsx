/**
 * A user's streak pauses: add one (POST /admin/v1/streaks/pauses, dates in the user's zone), the
 * user's upcoming ones (the Application API's user streak, with the admin key), and remove one
 * (DELETE /admin/v1/streaks/pauses).
 */
import { useState } from 'preact/hooks';
import { call, deleteOne, type Session } from '../../api.js';
import { useConfirm } from '../../confirm.js';
import { Field, fieldSetter } from '../../form.js';
import { ItemTable, type Column } from '../../list.js';
import type { StreakPausesAnswer, StreakPauseView as Pause, UserStreakView } from '../../types.js';

const COLUMNS: Column<Pause>[] = [{ head: 'From', cell: (p) => p.start }, { head: 'To', cell: (p) => p.end }];

/** The field a refusal of the Admin API concerns. */
const fieldOf = (message: string) => (/^User does not exist/.test(message) ? 'userId' : /^end|at most/.test(message) ? 'end' : 'start');

export function StreakPauses({ session }: { session: Session }) {
  const [form, setForm] = useState({ userId: '', start: '', end: '' });
  const [pauses, setPauses] = useState<Pause[] | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = fieldSetter(form, setForm);
  const [dialog, confirm] = useConfirm();
  const load = async (userId: string) => {
    const r = await call<UserStreakView>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/streak`);
    setPauses(r.body.pauses);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    try {
      const r = await call<StreakPausesAnswer>(session, 'POST', '/admin/v1/streaks/pauses', { pauses: [form] });
      const message = r.body.issues[0]?.message ?? '';
      if (message !== '') setErrors({ [fieldOf(message)]: message });
      // Made: the dates go (the user stays, their pauses listed below).
      else setForm({ ...form, start: '', end: '' });
      await load(form.userId);
    } catch (err) {
      setErrors({ form: (err as Error).message });
    }
  };
  const remove = async (p: Pause) => {
    if (!await confirm({
      title: `Remove the pause of ${form.userId} from ${p.start} to ${p.end}?`, action: 'Remove',
      body: <p>Those days count again: a day of them without an event breaks the streak, a freeze taken if the user has one.</p>,
    })) return;
    const id = p.id;
    setErrors({ list: await deleteOne(session, '/admin/v1/streaks/pauses', id) });
    await load(form.userId);
  };
  return (
    <div class="card">
      <h2>Pauses</h2>
      <form class="row" onSubmit={submit} aria-label="New pause">
        <Field id="pause-user" label="User id" error={errors.userId}>
          <input id="pause-user" value={form.userId} required onInput={set('userId')} />
        </Field>
        <Field id="pause-start" label="From (the user's day)" error={errors.start}>
          <input id="pause-start" type="date" value={form.start} required onInput={set('start')} />
        </Field>
        <Field id="pause-end" label="To" error={errors.end}>
          <input id="pause-end" type="date" value={form.end} required onInput={set('end')} />
        </Field>
        <button type="submit">Pause the streak</button>
      </form>
      <p class="error" role="alert">{errors.form ?? errors.list ?? ''}</p>
      {pauses !== null && (
        <ItemTable list={{ items: pauses, error: '', reload: () => load(form.userId) }} empty={`No pauses ahead for ${form.userId}.`} class="pauses" columns={COLUMNS}
          actions={(p) => <button type="button" class="small danger" aria-label={`Remove the pause from ${p.start}`} onClick={() => remove(p)}>Remove</button>} />
      )}
      {dialog}
    </div>
  );
}
