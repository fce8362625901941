/**
 * The analytics' range of days: From and To, each bound by the other in the browser (From at most
 * To), and the Admin API's refusal under the field it names (the rest under the form).
 */
import { Field } from '../../form.js';

export interface Range {
  from: string;
  to: string;
}

export function RangeForm(props: { range: Range; errors: Record<string, string>; onChange: (r: Range) => void; onSubmit: () => void }) {
  const { range, errors, onChange } = props;
  return (
    <form class="card inline" aria-label="Range" onSubmit={(e) => { e.preventDefault(); props.onSubmit(); }}>
      <Field id="from" label="From" error={errors.from}>
        <input id="from" type="date" value={range.from} max={range.to || undefined} aria-describedby="from-error"
          onInput={(e) => onChange({ ...range, from: e.currentTarget.value })} />
      </Field>
      <Field id="to" label="To" error={errors.to}>
        <input id="to" type="date" value={range.to} min={range.from || undefined} aria-describedby="to-error"
          onInput={(e) => onChange({ ...range, to: e.currentTarget.value })} />
      </Field>
      <button type="submit">Show</button>
    </form>
  );
}
