/** A labelled form field with its error under it (announced to screen readers). */
import type { ComponentChildren } from 'preact';

export function Field(props: { id: string; label: string; error?: string | null; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      <p class="error" id={`${props.id}-error`} role="alert">{props.error ?? ''}</p>
    </div>
  );
}

/**
 * Which field an Admin API message concerns, by the field names it mentions (`key`, `name`, ...);
 * null: the form as a whole.
 */
export function fieldOf(message: string, fields: string[]): string | null {
  for (const f of fields) if (new RegExp(`\\b${f}\\b`, 'i').test(message)) return f;
  return null;
}

/** A batch answer's issues as the form shows them: by field (fieldOf), the rest under `form`. */
export function errorsOf(issues: { message: string }[], fields: string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) errors[fieldOf(issue.message, fields) ?? 'form'] = issue.message;
  return errors;
}
