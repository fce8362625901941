/**
 * The state of a list with a form that creates an item and buttons that delete one: the form's
 * values and setter, the errors (by field, and `list` for a delete refused), submit and remove,
 * each reloading the list. Shared by the pages of the Admin API's batch resources.
 */
import { useState } from 'preact/hooks';
import { deleteOne, type Session } from './api.js';
import { createFromForm, fieldSetter } from './form.js';
import type { Loaded } from './list.js';

export function useCreateForm<F extends Record<string, string>, T>(
  session: Session, path: string, list: Loaded<T>, empty: F, item: (form: F) => unknown, fields: string[],
) {
  const [form, setForm] = useState(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await createFromForm<T>(session, path, item(form), fields, setErrors) === null) return;
    setForm(empty);
    await list.reload();
  };
  const remove = async (id: string) => {
    setErrors({ list: await deleteOne(session, path, id) });
    await list.reload();
  };
  return { form, set: fieldSetter(form, setForm), errors, setErrors, submit, remove };
}
