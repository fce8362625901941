/**
 * Asking before a destructive action: a modal dialog that says what will be lost, with the
 * action's own button (in red) and Cancel, which has the focus (Enter does not destroy) and which
 * Escape means too. `useConfirm` gives the dialog to render and `confirm`, which answers whether
 * the person went ahead.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface Ask {
  /** The question, naming the item: "Delete the achievement First lesson?" */
  title: string;
  /** What will be lost, in words. */
  body: ComponentChildren;
  /** The button that goes ahead: "Delete". */
  action: string;
}

function ConfirmDialog({ ask, answer }: { ask: Ask; answer: (yes: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    dialog.querySelector<HTMLButtonElement>('button.secondary')?.focus();
    return () => { if (opener?.isConnected) opener.focus(); };
  }, []);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-body"
      onCancel={(e) => { e.preventDefault(); answer(false); }}>
      <h2 id="confirm-title">{ask.title}</h2>
      <div id="confirm-body">{ask.body}</div>
      <div class="buttons">
        <button type="button" class="danger" onClick={() => answer(true)}>{ask.action}</button>
        <button type="button" class="secondary" onClick={() => answer(false)}>Cancel</button>
      </div>
    </dialog>
  );
}

/** The dialog (render it in the page) and `confirm`, which shows it and answers true when the action was chosen. */
export function useConfirm(): [ComponentChildren, (ask: Ask) => Promise<boolean>] {
  const [pending, setPending] = useState<{ ask: Ask; resolve: (yes: boolean) => void } | null>(null);
  const confirm = (ask: Ask) => new Promise<boolean>((resolve) => setPending({ ask, resolve }));
  const dialog = pending === null ? null : (
    <ConfirmDialog key={pending.ask.title} ask={pending.ask} answer={(yes) => { setPending(null); pending.resolve(yes); }} />
  );
  return [dialog, confirm];
}
