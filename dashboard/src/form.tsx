/** A labelled form field with its error under it (announced to screen readers). */
import type { ComponentChildren } from 'preact';
import { createOne, updateOne, type Session } from './api.js';
import { KEY_RULE, keyFromName, readable, type Rule } from './rules.js';

/** An item a form offers to choose (a metric, an achievement, an attribute, a points system): its id, shown by name. */
export interface Choice {
  id: string;
  name: string;
}

export function Field(props: { id: string; label: string; error?: string | null; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      <p class="error" id={`${props.id}-error`} role="alert">{props.error ?? ''}</p>
    </div>
  );
}

/** A field whose text the Admin API checks by a pattern: the browser checks it too, and the rule is said under it. */
export function RuledField(props: {
  id: string; label: string; rule: Rule; hint: ComponentChildren; value: string; error?: string | null; onInput: (e: Event) => void;
  /** Not required: what an empty field means is shown in it. */
  placeholder?: string;
}) {
  const { id, rule } = props;
  return (
    <Field id={id} label={props.label} error={props.error}>
      <input id={id} value={props.value} required={props.placeholder === undefined} placeholder={props.placeholder} pattern={rule.html}
        title={`${props.label}: ${rule.words}`}
        aria-describedby={`${id}-hint ${id}-error`} onInput={props.onInput} />
      <p class="hint" id={`${id}-hint`}>{props.hint}</p>
    </Field>
  );
}

/**
 * A key's field; with `derived` (the key the Admin API makes when none is sent), optional, that key
 * shown in it while it is empty.
 */
export function KeyField(props: { id: string; label?: string; value: string; error?: string | null; onInput: (e: Event) => void; derived?: string }) {
  const { derived, ...rest } = props;
  return (
    <RuledField {...rest} label={props.label ?? (derived === undefined ? 'Key' : 'Key (optional)')} rule={KEY_RULE} placeholder={derived}
      hint={derived === undefined ? <>How the API names it: {KEY_RULE.words}, e.g. <code>lessons</code>.</>
        : <>How the API names it: {KEY_RULE.words}. Left empty, it is made from the name, as shown (with <code>-2</code> when taken).</>} />
  );
}

/** The end of a form that saves one settings object: its refusal, whether it loaded or saved, and its button. */
export function SaveFooter(props: { state: { loaded: boolean; saved: boolean; errors: Record<string, string> }; label: string }) {
  const { state } = props;
  return (
    <>
      <p class="error" role="alert">{state.errors.form ?? ''}</p>
      <p class="muted" role="status">{state.saved ? 'Saved.' : state.loaded ? '' : 'Loading…'}</p>
      <button type="submit">{props.label}</button>
    </>
  );
}

/**
 * Which field an Admin API message concerns: of the field names it mentions (`key`, `name`, ...),
 * the one it mentions first ("html names \"x\", not a variable of ... (user, ...)": html); null: the
 * form as a whole.
 */
export function fieldOf(message: string, fields: string[]): string | null {
  let best: { field: string; at: number } | null = null;
  for (const f of fields) {
    const at = message.search(new RegExp(`\\b${f}\\b`, 'i'));
    if (at >= 0 && (best === null || at < best.at)) best = { field: f, at };
  }
  return best?.field ?? null;
}

/** A batch answer's issues as the form shows them: by field (fieldOf), the rest under `form`. */
export function errorsOf(issues: { message: string }[], fields: string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) errors[fieldOf(issue.message, fields) ?? 'form'] = readable(issue.message);
  return errors;
}

/**
 * Creates one item through a batch resource of the Admin API for a form: the created entity, or
 * null with the refusals handed to `setErrors` (by field; the rest, and a failed call, under `form`).
 */
export async function createFromForm<T>(
  session: Session, path: string, item: unknown, fields: string[], setErrors: (errors: Record<string, string>) => void,
): Promise<T | null> {
  setErrors({});
  try {
    const { created, issues } = await createOne<T>(session, path, item);
    if (created === null) setErrors(errorsOf(issues, fields));
    return created;
  } catch (err) {
    setErrors({ form: (err as Error).message });
    return null;
  }
}

/**
 * Updates one item through a batch resource of the Admin API for a form (PATCH `[{ id, ...changes }]`):
 * the updated entity, or null with the refusal handed to `setErrors` as createFromForm does.
 */
export async function updateFromForm<T>(
  session: Session, path: string, changes: { id: string } & Record<string, unknown>, fields: string[],
  setErrors: (errors: Record<string, string>) => void,
): Promise<T | null> {
  setErrors({});
  try {
    const { updated, error } = await updateOne<T>(session, path, changes);
    if (updated === null) setErrors(errorsOf([{ message: error }], fields));
    return updated;
  } catch (err) {
    setErrors({ form: (err as Error).message });
    return null;
  }
}

/** The fields of a form that hold text (what an input edits). */
export type TextKeys<F> = { [K in keyof F]: F[K] extends string ? K : never }[keyof F];

/** A form's fields kept in one object: `set(field)` is a text input's onInput. */
export function fieldSetter<F extends object>(form: F, setForm: (f: F) => void) {
  return (field: TextKeys<F>) => (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value });
}

/** The name and key fields every configured resource has. */
export function NameKey(props: {
  prefix: string; form: { name: string; key: string }; errors: Record<string, string>; set: (field: 'name' | 'key') => (e: Event) => void;
  /** The key may be left empty: the Admin API makes it from the name (keyFromName). */
  keyOptional?: boolean;
}) {
  const { prefix, form, errors, set } = props;
  return (
    <>
      <Field id={`${prefix}-name`} label="Name" error={errors.name}>
        <input id={`${prefix}-name`} value={form.name} required onInput={set('name')} />
      </Field>
      <KeyField id={`${prefix}-key`} value={form.key} error={errors.key} onInput={set('key')}
        derived={props.keyOptional === true ? keyFromName(form.name) : undefined} />
    </>
  );
}

/** The fields a new item of most resources starts with: its name, its key, and the metric it is on. */
export function NameKeyMetric(props: {
  prefix: string; form: { name: string; key: string; metricId: string }; errors: Record<string, string>;
  set: (field: 'name' | 'key' | 'metricId') => (e: Event) => void; metrics: Choice[]; metricLabel: string; keyOptional?: boolean;
}) {
  const { prefix, form, errors, set, metrics } = props;
  return (
    <>
      <NameKey prefix={prefix} form={form} errors={errors} set={set} keyOptional={props.keyOptional} />
      <Field id={`${prefix}-metric`} label={props.metricLabel} error={errors.metricId}>
        <select id={`${prefix}-metric`} value={form.metricId} required onChange={set('metricId')}>
          <option value="">Choose a metric</option>
          {metrics.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select>
      </Field>
    </>
  );
}
