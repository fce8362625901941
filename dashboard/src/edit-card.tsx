/**
 * The card of an edit form (useEditForm): its title, the fields, the form's error and status
 * lines, Save and Close. It takes the focus when it opens (its first field), Escape closes it, and
 * the focus goes back to what opened it.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { EditState } from './edit-form.js';

export function EditCard(props: { label: string; title: string; state: EditState; onClose: () => void; children: ComponentChildren }) {
  const { errors, done, submit } = props.state;
  const ref = useRef<HTMLFormElement>(null);
  // A layout effect: the focus moves as the form is drawn. An effect would move it after the next
  // frame, from whatever field a person (or a test) had already chosen and begun to type in.
  useLayoutEffect(() => {
    // The button that opened it gets the focus back when it closes (if it is still there).
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    ref.current?.querySelector<HTMLElement>('input:not([disabled]), select:not([disabled]), textarea')?.focus();
    return () => { if (opener?.isConnected) opener.focus(); };
  }, []);
  const escape = (e: KeyboardEvent) => { if (e.key === 'Escape') props.onClose(); };
  return (
    <form ref={ref} class="card edit" aria-label={props.label} onSubmit={submit} onKeyDown={escape}>
      <h2>{props.title}</h2>
      {props.children}
      <p class="error" role="alert">{errors.form ?? ''}</p>
      <p class="muted" role="status">{done}</p>
      <div class="buttons">
        <button type="submit">Save changes</button>
        <button type="button" class="secondary" onClick={props.onClose}>Close</button>
      </div>
    </form>
  );
}
