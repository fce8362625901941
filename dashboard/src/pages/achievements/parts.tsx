/** The achievements a composite achievement needs (its `achievementIds`), chosen in a multiple select. */
import { Field } from '../../form.js';

export function PartsField(props: {
  id: string; achievements: { id: string; name: string }[]; value: string[]; onChange: (ids: string[]) => void; error?: string;
}) {
  const { id, achievements, value } = props;
  return (
    <Field id={id} label="Achievements to complete" error={props.error}>
      <select id={id} multiple size={Math.min(6, Math.max(2, achievements.length))}
        onChange={(e) => props.onChange([...e.currentTarget.selectedOptions].map((o) => o.value))}>
        {achievements.map((a) => <option key={a.id} value={a.id} selected={value.includes(a.id)}>{a.name}</option>)}
      </select>
    </Field>
  );
}
