/**
 * The streak: its rule (GET/PUT /admin/v1/streaks/settings: the frequency, the metric that extends
 * it, and the freezes users hold and earn), then what an admin does to users' streaks
 * (streak/users.tsx: freezes, restore) and their pauses (streak/pauses.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../api.js';
import { Field, fieldSetter } from '../form.js';
import { useActiveMetrics } from '../list.js';
import { StreakPauses } from './streak/pauses.js';
import { StreakUsers } from './streak/users.js';

interface Settings {
  frequency: 'daily' | 'weekly' | 'monthly';
  evaluation: 'all' | 'any';
  metrics: { metricId: string; threshold: number }[];
  freezes: { initial: number; max: number; autoEarnInterval: number; autoEarnAmount: number } | null;
}

const EMPTY = { frequency: 'daily', evaluation: 'all', metricId: '', threshold: '1', initial: '0', max: '0', autoEarnInterval: '0', autoEarnAmount: '0' };

function RuleForm({ session }: { session: Session }) {
  const metrics = useActiveMetrics(session);
  const [form, setForm] = useState(EMPTY);
  // The rule's other metrics (the form edits the first): kept as they are when it is saved.
  const [others, setOthers] = useState<Settings['metrics']>([]);
  const [state, setState] = useState<{ saved: boolean; error: string; loaded: boolean }>({ saved: false, error: '', loaded: false });
  const set = fieldSetter(form, setForm);
  useEffect(() => {
    void call<Settings>(session, 'GET', '/admin/v1/streaks/settings').then((r) => {
      const s = r.body;
      const f = s.freezes;
      setOthers(s.metrics.slice(1));
      setForm({
        frequency: s.frequency, evaluation: s.evaluation ?? 'all', metricId: s.metrics[0]?.metricId ?? '', threshold: String(s.metrics[0]?.threshold ?? 1),
        initial: String(f?.initial ?? 0), max: String(f?.max ?? 0), autoEarnInterval: String(f?.autoEarnInterval ?? 0), autoEarnAmount: String(f?.autoEarnAmount ?? 0),
      });
      setState((st) => ({ ...st, loaded: true }));
    }, (err: Error) => setState({ saved: false, error: err.message, loaded: true }));
  }, [session.key]);
  const save = async (e: Event) => {
    e.preventDefault();
    setState({ saved: false, error: '', loaded: true });
    const max = Number(form.max);
    try {
      await call(session, 'PUT', '/admin/v1/streaks/settings', {
        frequency: form.frequency, evaluation: form.evaluation, metrics: [{ metricId: form.metricId, threshold: Number(form.threshold) }, ...others.filter((m) => m.metricId !== form.metricId)],
        freezes: max === 0 ? null : { initial: Number(form.initial), max, autoEarnInterval: Number(form.autoEarnInterval), autoEarnAmount: Number(form.autoEarnAmount) },
      });
      setState({ saved: true, error: '', loaded: true });
    } catch (err) {
      setState({ saved: false, error: (err as Error).message, loaded: true });
    }
  };
  const freezeError = /freez/i.test(state.error) ? state.error : '';
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
        <Field id="streak-metric" label="Extended by the metric">
          <select id="streak-metric" value={form.metricId} required onChange={set('metricId')}>
            <option value="">Choose a metric</option>
            {metrics.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select>
        </Field>
        <Field id="streak-threshold" label="At least, per period" error={freezeError === '' ? state.error : ''}>
          <input id="streak-threshold" type="number" min="1" value={form.threshold} required onInput={set('threshold')} />
        </Field>
        {others.length > 0 && <p class="muted">The rule names {others.length} other metric{others.length === 1 ? '' : 's'} too ({form.evaluation === 'all' ? 'all' : 'any'} must be met): kept as they are.</p>}
        <h3>Freezes</h3>
        <p class="muted">A freeze bridges a missed period. With at most 0, users hold none.</p>
        <div class="row">
          <Field id="freeze-max" label="At most" error={freezeError}>
            <input id="freeze-max" type="number" min="0" max="100" value={form.max} required onInput={set('max')} />
          </Field>
          <Field id="freeze-initial" label="To start with">
            <input id="freeze-initial" type="number" min="0" max="100" value={form.initial} required onInput={set('initial')} />
          </Field>
          <Field id="freeze-amount" label="Earned">
            <input id="freeze-amount" type="number" min="0" max="100" value={form.autoEarnAmount} required onInput={set('autoEarnAmount')} />
          </Field>
          <Field id="freeze-interval" label="Every (days; 0: never)">
            <input id="freeze-interval" type="number" min="0" max="3660" value={form.autoEarnInterval} required onInput={set('autoEarnInterval')} />
          </Field>
        </div>
        <p class="muted" role="status">{state.saved ? 'Saved.' : state.loaded ? '' : 'Loading…'}</p>
        <button type="submit">Save the rule</button>
      </fieldset>
    </form>
  );
}

export function StreakPage({ session }: { session: Session }) {
  return (
    <section>
      <h1>Streak</h1>
      <RuleForm session={session} />
      <StreakUsers session={session} />
      <StreakPauses session={session} />
    </section>
  );
}
