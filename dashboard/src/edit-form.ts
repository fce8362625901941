/**
 * The state of a form that edits one item of a batch resource of the Admin API: the form's values
 * and setters, the errors (by field; `form` for the rest), the status line, and submit, which
 * PATCHes only the fields whose value changed since the item was read (or last saved), so a field
 * the item's state does not let change is never sent untouched. Shared by the pages' edit forms.
 */
import { useState } from 'preact/hooks';
import type { Session } from './api.js';
import { fieldSetter, updateFromForm } from './form.js';

/** The properties of `next` whose value differs from `was`'s (compared as JSON). */
export function changesOf(was: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(was[k])));
}

export interface EditState {
  errors: Record<string, string>;
  done: string;
  submit: (e: Event) => Promise<void>;
}

/**
 * `item` makes the API's fields of a form; `saved` hears of the updated entity (to reload a list).
 */
export function useEditForm<F extends object, T>(
  session: Session, path: string, id: string, initial: F, item: (form: F) => Record<string, unknown>, fields: string[],
  saved: (updated: T) => unknown,
) {
  const [form, setForm] = useState(initial);
  const [base, setBase] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const changes = changesOf(item(base), item(form));
    if (Object.keys(changes).length === 0) {
      setErrors({});
      return setDone('Nothing changed.');
    }
    const updated = await updateFromForm<T>(session, path, { id, ...changes }, fields, setErrors);
    if (updated === null) return;
    setBase(form);
    setDone('Saved.');
    await saved(updated);
  };
  /** Sets a field that is not text (a list, filters). */
  const put = <K extends keyof F>(field: K, value: F[K]) => setForm({ ...form, [field]: value });
  const state: EditState = { errors, done, submit };
  return { form, set: fieldSetter(form, setForm), put, errors, state };
}
