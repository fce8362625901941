/**
 * Attribute filters (`[{ attributeId, attributeValue }]`, as achievements, points triggers, boosts
 * and notification templates take them): a row per filter, the attribute chosen among those of
 * its kind and the value typed, each removable, and a button that adds one. The Admin API's
 * refusal shows under the list (`<id>-error`).
 */
import type { Choice } from './form.js';
import type { AttributeFilter } from './types.js';

export type { AttributeFilter };

export function FiltersField(props: {
  id: string; label: string; attributes: Choice[]; value: AttributeFilter[];
  onChange: (value: AttributeFilter[]) => void; error?: string; none: string;
}) {
  const { id, label, attributes, value, onChange } = props;
  const change = (i: number, patch: Partial<AttributeFilter>) => onChange(value.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <fieldset class="filters" id={id} aria-describedby={`${id}-error`}>
      <legend>{label}</legend>
      {value.length === 0 && <p class="muted">{props.none}</p>}
      {value.map((f, i) => (
        <div class="filter" key={i}>
          <select aria-label={`${label} ${i + 1}: attribute`} value={f.attributeId} required
            onChange={(e) => change(i, { attributeId: e.currentTarget.value })}>
            {!attributes.some((a) => a.id === f.attributeId) && <option value={f.attributeId}>{f.attributeId}</option>}
            {attributes.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
          <span aria-hidden="true">=</span>
          <input aria-label={`${label} ${i + 1}: value`} value={f.attributeValue}
            onInput={(e) => change(i, { attributeValue: e.currentTarget.value })} />
          <button type="button" class="small secondary" aria-label={`Remove ${label} ${i + 1}`}
            onClick={() => onChange(value.filter((_, j) => j !== i))}>Remove</button>
        </div>
      ))}
      {attributes.length === 0
        ? <p class="muted">No attributes of this kind yet (the Attributes page creates them).</p>
        : <button type="button" class="small secondary" aria-label={`Add a filter: ${label}`}
          onClick={() => onChange([...value, { attributeId: attributes[0].id, attributeValue: '' }])}>Add a filter</button>}
      <p class="error" id={`${id}-error`} role="alert">{props.error ?? ''}</p>
    </fieldset>
  );
}
