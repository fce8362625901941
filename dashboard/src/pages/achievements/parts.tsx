/**
 * The achievements a composite achievement needs (its `achievementIds`), chosen in a multiple select:
 * one at least (the browser says so before the Admin API would), how to choose several said under it.
 */
import { Field, type Choice } from '../../form.js';

export function PartsField(props: {
  id: string; achievements: Choice[]; value: string[]; onChange: (ids: string[]) => void; error?: string;
}) {
  const { id, achievements, value } = props;
  return (
    <Field id={id} label="Achievements to complete" error={props.error}>
      <select id={id} multiple required size={Math.min(6, Math.max(2, achievements.length))} aria-describedby={`${id}-hint ${id}-error`}
        onChange={(e) => props.onChange([...e.currentTarget.selectedOptions].map((o) => o.value))}>
        {achievements.map((a) => <option key={a.id} value={a.id} selected={value.includes(a.id)}>{a.name}</option>)}
      </select>
      <p class="hint" id={`${id}-hint`}>One or more: Ctrl-click (⌘-click on a Mac) or Shift-click to choose several.</p>
    </Field>
  );
}
