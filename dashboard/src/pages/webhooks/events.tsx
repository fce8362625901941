/** The events a webhook endpoint is sent: a checkbox per type, the Admin API's refusal under them (`<id>-error`). */
import { WEBHOOK_TYPES } from '../../types.js';

export function EventChecks(props: { id: string; value: string[]; onChange: (events: string[]) => void; error?: string }) {
  const { id, value } = props;
  const toggle = (type: string) => props.onChange(value.includes(type) ? value.filter((t) => t !== type) : [...value, type]);
  return (
    <>
      <fieldset class="checks" aria-describedby={`${id}-error`}>
        <legend>Events</legend>
        {WEBHOOK_TYPES.map((t) => (
          <label key={t}><input type="checkbox" checked={value.includes(t)} onChange={() => toggle(t)} /> {t}</label>
        ))}
      </fieldset>
      <p class="error" id={`${id}-error`} role="alert">{props.error ?? ''}</p>
    </>
  );
}
