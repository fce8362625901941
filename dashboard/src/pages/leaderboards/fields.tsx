/**
 * The fields a leaderboard is made of, shared by the form that creates one and the one that edits
 * it: what it ranks (RankFields) and its runs (RunFields). A field its state does not let change
 * is shown disabled.
 */
import { Field, type Choice } from '../../form.js';

/**
 * How often a new run starts, as the form offers it: the field holds one of these values, a unit
 * with its interval (`day:7`, weekly) or a unit alone, whose interval the N field gives.
 */
const REPEATS: [string, string][] = [
  ['', 'Never (one run)'], ['day:1', 'Daily'], ['day:7', 'Weekly (from a Monday)'], ['month:1', 'Monthly'], ['year:1', 'Yearly'],
  ['day', 'Every N days'], ['month', 'Every N months'], ['year', 'Every N years'],
];

/** The field's value for a board's runs: its preset when one says it ("weekly"), else its unit. */
export function repeatOf(runUnit: string | undefined, runInterval: number | undefined): string {
  if (runUnit === undefined || runUnit === '') return '';
  const preset = `${runUnit}:${runInterval ?? 1}`;
  return REPEATS.some(([v]) => v === preset) ? preset : runUnit;
}

/** The Admin API's `runUnit` ('' for one run) and `runInterval` of the field's value and the N typed. */
export function runOf(repeat: string, n: string): { runUnit: string; runInterval: number } {
  const [unit, preset] = repeat.split(':');
  return { runUnit: unit, runInterval: Number(preset ?? n) };
}

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
        {/* Its unit fixed, a board may still change how many of it a run lasts (until it has started). */}
        <select id={`${p}-repeat`} value={form.runUnit} disabled={fixed.runs || (fixed.unit && form.runUnit === '')} onChange={set('runUnit')}>
          {REPEATS.map(([value, words]) => (
            <option key={value} value={value} disabled={fixed.unit && value.split(':')[0] !== form.runUnit.split(':')[0]}>{words}</option>
          ))}
        </select>
      </Field>
      {!form.runUnit.includes(':') && form.runUnit !== '' && (
        <Field id={`${p}-interval`} label="N" error={errors.runInterval}>
          <input id={`${p}-interval`} type="number" min="1" value={form.runInterval} required disabled={fixed.runs} onInput={set('runInterval')} />
        </Field>
      )}
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

/** The most shards a board may have (src/domain/leaderboards/shards.ts). */
const MAX_SHARDS = 64;

/**
 * `shards`: how many rankings each run of an uncapped board is spread over. Disabled, with the
 * reason under it, while the board is capped (a capped board's admission needs its one ranking)
 * or `fixed` (a board that has started keeps its count).
 */
export function ShardsField(props: {
  prefix: string; form: { shards: string; maxParticipants: string }; errors: Record<string, string>; set: Set<'shards'>; fixed?: boolean;
}) {
  const { prefix: p, form } = props;
  const capped = form.maxParticipants.trim() !== '';
  const id = `${p}-shards`;
  return (
    <Field id={id} label="Shards" error={props.errors.shards}>
      <input id={id} type="number" min="1" max={MAX_SHARDS} value={capped ? '1' : form.shards} disabled={capped || props.fixed === true}
        onInput={props.set('shards')} aria-describedby={`${id}-hint`} />
      <p class="hint" id={`${id}-hint`}>
        {capped ? 'A capped board keeps one ranking: empty the participants to rank every one and spread it.'
          : `Rankings each run is spread over (1 to ${MAX_SHARDS}), each on its own Cluster slot; fixed once the board starts.`}
      </p>
    </Field>
  );
}

/** `shards` as the Admin API takes it from the field: only on an uncapped board, and above 1. */
export function shardsOf(form: { shards: string; maxParticipants: string }): { shards?: number } {
  const n = Number(form.shards);
  return form.maxParticipants.trim() === '' && form.shards.trim() !== '' && n !== 1 ? { shards: n } : {};
}
