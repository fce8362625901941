/**
 * Editing a leaderboard (PATCH /admin/v1/leaderboards), the fields its status lets change (the
 * state table, docs/api.md): while inactive, everything; scheduled, not what it ranks, its key or
 * its repeat unit; active, its name, description, size (only up), end and daily window; finished,
 * its name and description. The rest shows disabled. A refusal shows under its field (a board
 * that has been active keeps what it ranks even when paused: the Admin API says so there).
 */
import type { Session } from '../../api.js';
import { EditCard } from '../../edit-card.js';
import { useEditForm } from '../../edit-form.js';
import { Field, type Choice } from '../../form.js';
import { RankFields, repeatOf, RunFields, runOf, ShardsField } from './fields.js';
import type { Board } from './rankings.js';

const FIELDS = [
  'key', 'name', 'description', 'rankBy', 'metricId', 'pointsSystemId', 'maxParticipants', 'shards', 'runUnit', 'runInterval',
  'start', 'end', 'startTime', 'endTime', 'breakdownAttributes',
];

const orNull = (v: string) => (v === '' ? null : v);

/** The runs a form's fields say, as a PATCH sends them (null: one run). */
function runFields(f: { runUnit: string; runInterval: string }) {
  const { runUnit, runInterval } = runOf(f.runUnit, f.runInterval);
  return runUnit === '' ? { runUnit: null, runInterval: null } : { runUnit, runInterval };
}

export function EditBoard(props: {
  session: Session; board: Board; metrics: Choice[]; systems: Choice[]; attributes: Choice[]; onSaved: () => unknown; onClose: () => void;
}) {
  const { board: b } = props;
  const initial = {
    name: b.name, key: b.key, description: b.description ?? '', rankBy: b.rankBy, metricId: b.metricId ?? '', pointsSystemId: b.pointsSystemId ?? '',
    maxParticipants: b.maxParticipants === null ? '' : String(b.maxParticipants), shards: String(b.shards ?? 1), runUnit: repeatOf(b.runUnit, b.runInterval), runInterval: String(b.runInterval ?? 1), start: b.start,
    breakdown: b.breakdownAttributes[0] ?? '', end: b.end ?? '', startTime: b.startTime ?? '', endTime: b.endTime ?? '',
  };
  const { form, set, errors, state } = useEditForm(props.session, '/admin/v1/leaderboards', b.id, initial, (f) => ({
    ...runFields(f),
    name: f.name, key: f.key, description: orNull(f.description), rankBy: f.rankBy,
    ...(f.rankBy === 'metric' && { metricId: f.metricId }),
    ...(f.rankBy === 'points' && { pointsSystemId: f.pointsSystemId }),
    // Empty: uncapped, every participant ranked.
    maxParticipants: f.maxParticipants === '' ? null : Number(f.maxParticipants),
    // A capped board has one ranking (capping a board of several before it starts makes it one).
    shards: f.maxParticipants === '' ? Number(f.shards || '1') : 1,
    start: f.start, breakdownAttributes: f.breakdown === '' ? [] : [f.breakdown],
    end: orNull(f.end), startTime: orNull(f.startTime), endTime: orNull(f.endTime),
  }), FIELDS, props.onSaved);
  const inactive = b.status === 'inactive';
  const started = b.status === 'active' || b.status === 'finished';
  const finished = b.status === 'finished';
  const p = 'board-edit';
  return (
    <EditCard label={`Edit leaderboard ${b.name}`} title={`Edit ${b.name} (${b.status})`} state={state} onClose={props.onClose}>
      {!inactive && (
        <p class="muted">
          {finished ? 'A finished board keeps its runs as they are: only its name and description can change.'
            : `While ${b.status}, what it ranks, its key and its repeat unit are fixed${started ? ', and so are its runs and groups; its size can only rise' : ''}. Pause it to change them.`}
        </p>
      )}
      <div class="row">
        <Field id={`${p}-name`} label="Name" error={errors.name}>
          <input id={`${p}-name`} value={form.name} required onInput={set('name')} />
        </Field>
        <Field id={`${p}-key`} label="Key" error={errors.key}>
          <input id={`${p}-key`} value={form.key} required disabled={!inactive} onInput={set('key')} />
        </Field>
      </div>
      <Field id={`${p}-description`} label="Description" error={errors.description}>
        <textarea id={`${p}-description`} rows={2} value={form.description} onInput={set('description')} />
      </Field>
      <div class="row">
        <RankFields prefix={p} form={form} errors={errors} set={set} metrics={props.metrics} systems={props.systems} disabled={!inactive} />
        <Field id={`${p}-size`} label="Participants (at most)" error={errors.maxParticipants}>
          <input id={`${p}-size`} type="number" min="1" max="1000" value={form.maxParticipants} placeholder="every one" disabled={finished} onInput={set('maxParticipants')} />
        </Field>
        <ShardsField prefix={p} form={form} errors={errors} set={set} fixed={started} />
      </div>
      <RunFields prefix={p} form={form} errors={errors} set={set} attributes={props.attributes} fixed={{ unit: !inactive, runs: started }} />
      <div class="row">
        <Field id={`${p}-end`} label="Ends on (optional)" error={errors.end}>
          <input id={`${p}-end`} type="date" value={form.end} disabled={finished} onInput={set('end')} />
        </Field>
        <Field id={`${p}-start-time`} label="Each day from (optional)" error={errors.startTime}>
          <input id={`${p}-start-time`} type="time" value={form.startTime} disabled={finished} onInput={set('startTime')} />
        </Field>
        <Field id={`${p}-end-time`} label="Each day until (optional)" error={errors.endTime}>
          <input id={`${p}-end-time`} type="time" value={form.endTime} disabled={finished} onInput={set('endTime')} />
        </Field>
      </div>
    </EditCard>
  );
}
