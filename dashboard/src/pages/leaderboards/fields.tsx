/**
 * The fields a leaderboard is made of, shared by the form that creates one and the one that edits
 * it: what it ranks (RankFields) and its runs (RunFields). A field its state does not let change
 * is shown disabled.
 */
import { Field, type Choice } from '../../form.js';

type Set<K extends string> = (field: K) => (e: Event) => void;

export function RankFields(props: {
  prefix: string; form: { rankBy: string; metricId: string; pointsSystemId: string }; errors: Record<string, string>;
  set: Set<'rankBy' | 'metricId' | 'pointsSystemId'>; metrics: Choice[]; systems: Choice[]; disabled?: boolean;
}) {
  const { prefix: p, form, errors, set, disabled } = props;
  return (
    <>
      <Field id={`${p}-rank-by`} label="Ranks users by" error={errors.rankBy}>
        <select id={`${p}-rank-by`} value={form.rankBy} disabled={disabled} onChange={set('rankBy')}>
          <option value="metric">a metric's total</option>
          <option value="points">a points system's total</option>
          <option value="streak">their streak's length</option>
        </select>
      </Field>
      {form.rankBy === 'metric' && (
        <Field id={`${p}-metric`} label="Ranks the metric" error={errors.metricId}>
          <select id={`${p}-metric`} value={form.metricId} required disabled={disabled} onChange={set('metricId')}>
            <option value="">Choose a metric</option>
            {props.metrics.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select>
        </Field>
      )}
      {form.rankBy === 'points' && (
        <Field id={`${p}-points`} label="Points system" error={errors.pointsSystemId}>
          <select id={`${p}-points`} value={form.pointsSystemId} required disabled={disabled} onChange={set('pointsSystemId')}>
            <option value="">Choose a points system</option>
            {props.systems.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
          </select>
        </Field>
      )}
    </>
  );
}

export function RunFields(props: {
  prefix: string; form: { runUnit: string; runInterval: string; start: string; breakdown: string }; errors: Record<string, string>;
  set: Set<'runUnit' | 'runInterval' | 'start' | 'breakdown'>; attributes: Choice[];
  /** The repeat unit cannot change (the board is no longer inactive); nor the rest (it has started). */
  fixed?: { unit: boolean; runs: boolean };
  /** Said under the start (what an empty one means). */
  startHint?: string;
}) {
  const { prefix: p, form, errors, set } = props;
  const fixed = props.fixed ?? { unit: false, runs: false };
  return (
    <div class="row">
      <Field id={`${p}-repeat`} label="Starts a new run" error={errors.runUnit}>
        <select id={`${p}-repeat`} value={form.runUnit} disabled={fixed.unit} onChange={set('runUnit')}>
          <option value="">Never (one run)</option><option value="day">Every N days</option>
          <option value="month">Every N months</option><option value="year">Every N years</option>
        </select>
      </Field>
      <Field id={`${p}-interval`} label="N" error={errors.runInterval}>
        <input id={`${p}-interval`} type="number" min="1" value={form.runInterval} disabled={form.runUnit === '' || fixed.runs} onInput={set('runInterval')} />
      </Field>
      <Field id={`${p}-start`} label="Starts on (optional)" error={errors.start}>
        <input id={`${p}-start`} type="date" value={form.start} disabled={fixed.runs} onInput={set('start')}
          aria-describedby={props.startHint === undefined ? undefined : `${p}-start-hint`} />
        {props.startHint !== undefined && <p class="hint" id={`${p}-start-hint`}>{props.startHint}</p>}
      </Field>
      <Field id={`${p}-breakdown`} label="Groups users by" error={errors.breakdownAttributes}>
        <select id={`${p}-breakdown`} value={form.breakdown} disabled={fixed.runs} onChange={set('breakdown')}>
          <option value="">No groups</option>
          {props.attributes.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
        </select>
      </Field>
    </div>
  );
}
