/**
 * The metrics of the streak rule: a row per metric (the metric, and how much of it a period needs),
 * the first one always there, the others removable, a button that adds one, and how the rule judges
 * a period with several (all of them met, or any). Errors by row: `metrics.<i>.metricId`,
 * `metrics.<i>.threshold` (ruleErrorsOf says which a refusal concerns).
 */
import { Field, type Choice } from '../../form.js';

export interface RuleMetric {
  metricId: string;
  threshold: string;
}

/** At most this many metrics in the rule (the Admin API's limit). */
const MAX = 20;

/**
 * Which field of the rule form an Admin API refusal concerns: a metric's row (named by its index,
 * `metrics.1.threshold ...`, or by its id, the last row naming it: the repeated one), the freezes, the
 * evaluation, else the form.
 */
export function ruleErrorsOf(message: string, metrics: RuleMetric[]): Record<string, string> {
  const at = /^metrics\.(\d+)(?:\.(metricId|threshold))?/.exec(message);
  if (at !== null) return { [`metrics.${at[1]}.${at[2] ?? 'metricId'}`]: message };
  const row = metrics.map((m) => m.metricId).lastIndexOf(/"([^"]+)"/.exec(message)?.[1] ?? '\0');
  if (/^metrics\b/.test(message) && row >= 0) return { [`metrics.${row}.metricId`]: message };
  if (/freez/i.test(message)) return { freezes: message };
  if (/\bevaluation\b/.test(message)) return { evaluation: message };
  return { form: message };
}

export function RuleMetrics(props: {
  metrics: RuleMetric[]; evaluation: string; choices: Choice[]; errors: Record<string, string>;
  onChange: (metrics: RuleMetric[]) => void; onEvaluation: (evaluation: string) => void;
}) {
  const { metrics, errors } = props;
  const change = (i: number, patch: Partial<RuleMetric>) => props.onChange(metrics.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  return (
    <>
      {metrics.map((m, i) => {
        const id = i === 0 ? 'streak-metric' : `streak-metric-${i + 1}`;
        const threshold = i === 0 ? 'streak-threshold' : `streak-threshold-${i + 1}`;
        return (
          <div class="row rule-metric" key={i}>
            <Field id={id} label={i === 0 ? 'Extended by the metric' : `Metric ${i + 1}`} error={errors[`metrics.${i}.metricId`]}>
              <select id={id} value={m.metricId} required onChange={(e) => change(i, { metricId: e.currentTarget.value })}>
                <option value="">Choose a metric</option>
                {props.choices.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
              </select>
            </Field>
            <Field id={threshold} label={i === 0 ? 'At least, per period' : `Metric ${i + 1}: at least, per period`} error={errors[`metrics.${i}.threshold`]}>
              <input id={threshold} type="number" min="0" step="any" value={m.threshold} required onInput={(e) => change(i, { threshold: e.currentTarget.value })} />
            </Field>
            {i > 0 && (
              <button type="button" class="small secondary" aria-label={`Remove metric ${i + 1}`}
                onClick={() => props.onChange(metrics.filter((_, j) => j !== i))}>Remove</button>
            )}
          </div>
        );
      })}
      {metrics.length < MAX && (
        <button type="button" class="small secondary" onClick={() => props.onChange([...metrics, { metricId: '', threshold: '1' }])}>Add a metric</button>
      )}
      <Field id="streak-evaluation" label="With several metrics, a period counts when" error={errors.evaluation}>
        <select id="streak-evaluation" value={props.evaluation} onChange={(e) => props.onEvaluation(e.currentTarget.value)}>
          <option value="all">all of them reach their amount</option>
          <option value="any">any of them reaches its amount</option>
        </select>
      </Field>
    </>
  );
}
