/**
 * The streak rule (GET/PUT /admin/v1/streaks/settings, read and saved whole): the frequency, the
 * metrics that extend it and how a period with several is judged (rule-metrics.tsx), the weekdays
 * off of a daily rule, and the freezes users hold and earn. A refusal shows under the field it
 * concerns.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { Field, fieldSetter, SaveFooter } from '../../form.js';
import { useActiveMetrics } from '../../list.js';
import type { StreakSettingsView } from '../../types.js';
import { RuleMetrics, ruleErrorsOf, type RuleMetric } from './rule-metrics.js';

/** The weekdays as the Admin API numbers them (0 Sunday to 6 Saturday), listed from Monday. */
const WEEKDAYS: [number, string][] = [[1, 'Monday'], [2, 'Tuesday'], [3, 'Wednesday'], [4, 'Thursday'], [5, 'Friday'], [6, 'Saturday'], [0, 'Sunday']];

const EMPTY = { frequency: 'daily', evaluation: 'all', initial: '0', max: '0', autoEarnInterval: '0', autoEarnAmount: '0' };

export function RuleForm({ session }: { session: Session }) {
  const choices = useActiveMetrics(session);
  const [form, setForm] = useState(EMPTY);
  const [metrics, setMetrics] = useState<RuleMetric[]>([{ metricId: '', threshold: '1' }]);
  const [daysOff, setDaysOff] = useState<number[]>([]);
  const [state, setState] = useState<{ saved: boolean; errors: Record<string, string>; loaded: boolean }>({ saved: false, errors: {}, loaded: false });
  const set = fieldSetter(form, setForm);
  useEffect(() => {
    void call<StreakSettingsView>(session, 'GET', '/admin/v1/streaks/settings').then((r) => {
      const s = r.body;
      const f = s.freezes;
      setMetrics(s.metrics.length === 0 ? [{ metricId: '', threshold: '1' }] : s.metrics.map((m) => ({ metricId: m.metricId, threshold: String(m.threshold) })));
      setDaysOff(s.daysOff ?? []);
      setForm({
        frequency: s.frequency, evaluation: s.evaluation ?? 'all',
        initial: String(f?.initial ?? 0), max: String(f?.max ?? 0), autoEarnInterval: String(f?.autoEarnInterval ?? 0), autoEarnAmount: String(f?.autoEarnAmount ?? 0),
      });
      setState((st) => ({ ...st, loaded: true }));
    }, (err: Error) => setState({ saved: false, errors: { form: err.message }, loaded: true }));
  }, [session.key]);
  const save = async (e: Event) => {
    e.preventDefault();
    setState({ saved: false, errors: {}, loaded: true });
    const max = Number(form.max);
    try {
      await call(session, 'PUT', '/admin/v1/streaks/settings', {
        frequency: form.frequency, evaluation: form.evaluation, metrics: metrics.map((m) => ({ metricId: m.metricId, threshold: Number(m.threshold) })),
        // Days off are a daily rule's only: another frequency saves none.
        daysOff: form.frequency === 'daily' ? daysOff : [],
        freezes: max === 0 ? null : { initial: Number(form.initial), max, autoEarnInterval: Number(form.autoEarnInterval), autoEarnAmount: Number(form.autoEarnAmount) },
      });
      setState({ saved: true, errors: {}, loaded: true });
    } catch (err) {
      const message = (err as Error).message;
      setState({ saved: false, errors: /\bdaysOff\b/.test(message) ? { daysOff: message } : ruleErrorsOf(message, metrics), loaded: true });
    }
  };
  const { errors } = state;
  return (
    <form class="card" onSubmit={save} aria-label="Streak rule">
      <h2>The streak rule</h2>
      {/* The fields are enabled once the rule is read: nothing typed before is overwritten by it. */}
      <fieldset disabled={!state.loaded} class="plain">
        <Field id="streak-frequency" label="Frequency">
          <select id="streak-frequency" value={form.frequency} onChange={set('frequency')}>
            <option value="daily">Daily</option><option value="weekly">Weekly</option><option value="monthly">Monthly</option>
          </select>
        </Field>
        <RuleMetrics metrics={metrics} evaluation={form.evaluation} choices={choices} errors={errors}
          onChange={setMetrics} onEvaluation={(evaluation) => setForm({ ...form, evaluation })} />
        {form.frequency === 'daily' && (
          <>
            <fieldset class="checks" aria-describedby="streak-days-off-hint streak-days-off-error">
              <legend>Days off</legend>
              {WEEKDAYS.map(([day, name]) => (
                <label key={day}>
                  <input type="checkbox" checked={daysOff.includes(day)}
                    onChange={() => setDaysOff(daysOff.includes(day) ? daysOff.filter((d) => d !== day) : [...daysOff, day])} /> {name}
                </label>
              ))}
            </fieldset>
            <p class="hint" id="streak-days-off-hint">On a day off (the user's own day) an event does not extend the streak, and a day without one does not break it.</p>
            <p class="error" id="streak-days-off-error" role="alert">{errors.daysOff ?? ''}</p>
          </>
        )}
        <h3>Freezes</h3>
        <p class="muted">A freeze bridges a missed period. With at most 0, users hold none.</p>
        <div class="row">
          <Field id="freeze-max" label="At most" error={errors.freezes}>
            <input id="freeze-max" type="number" min="0" max="100" value={form.max} required onInput={set('max')} />
          </Field>
          {/* At most the most held: the Admin API would cut it down silently. */}
          <Field id="freeze-initial" label="To start with">
            <input id="freeze-initial" type="number" min="0" max={Math.min(100, Number(form.max) || 0)} value={form.initial} required onInput={set('initial')} />
          </Field>
          <Field id="freeze-amount" label="Earned">
            <input id="freeze-amount" type="number" min="0" max="100" value={form.autoEarnAmount} required onInput={set('autoEarnAmount')} />
          </Field>
          <Field id="freeze-interval" label="Every (days; 0: never)">
            <input id="freeze-interval" type="number" min="0" max="3660" value={form.autoEarnInterval} required onInput={set('autoEarnInterval')} />
          </Field>
        </div>
        <SaveFooter state={state} label="Save the rule" />
      </fieldset>
    </form>
  );
}
