/**
 * Leaderboards: the list with each one's lifecycle actions (leaderboards/lifecycle.tsx), a form that
 * creates one (perpetual or repeating, optionally grouped by a user attribute, an uncapped one
 * spread over shards; its fields in
 * leaderboards/fields.tsx), editing one (leaderboards/edit.tsx), and the rankings of the one chosen,
 * of any run, with the past runs' winners (leaderboards/rankings.tsx).
 *
 * A new board is created active when its start is today or before, scheduled when it is in the
 * future (the Admin API refuses an active board with a future start): the start typed, or the one
 * the Admin API gives a board left without (today; the next Monday for one every 7 days). The
 * browser's day may not be the server's (its clock, or a manual one): the Admin API's refusal of
 * the one status then names the other, which is sent instead.
 */
import { useState } from 'preact/hooks';
import { createOne, type Session } from '../api.js';
import { useConfirm } from '../confirm.js';
import { errorsOf, Field, fieldSetter, NameKey } from '../form.js';
import { ItemTable, useList } from '../list.js';
import type { AttributeView as Attribute, MetricView, PointsSystemAdminView } from '../types.js';
import { ranksOf, runsOf, sizeOf } from '../words.js';
import { EditBoard } from './leaderboards/edit.js';
import { RankFields, RunFields, runOf, ShardsField, shardsOf } from './leaderboards/fields.js';
import { Lifecycle } from './leaderboards/lifecycle.js';
import { Rankings, type Board } from './leaderboards/rankings.js';

const PATH = '/admin/v1/leaderboards';
const FIELDS = ['key', 'name', 'metricId', 'pointsSystemId', 'maxParticipants', 'shards', 'runUnit', 'runInterval', 'start', 'breakdownAttributes', 'rankBy'];

/** The Monday of `date`'s week or the next one (YYYY-MM-DD, UTC), as the Admin API starts a weekly board. */
export function mondayFrom(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + ((8 - d.getUTCDay()) % 7));
  return d.toISOString().slice(0, 10);
}

/** The status a new board is created with: scheduled when its start is after today. */
export function statusFor(form: { start: string; runUnit: string; runInterval: string }, today: string): 'active' | 'scheduled' {
  const run = runOf(form.runUnit, form.runInterval);
  const weekly = run.runUnit === 'day' && run.runInterval === 7;
  const start = form.start !== '' ? form.start : weekly ? mondayFrom(today) : today;
  return start > today ? 'scheduled' : 'active';
}

/** Creates a board; a refusal of its status that names the other one (the server's day is not the browser's) sends that one. */
async function createBoard(session: Session, item: Record<string, unknown>) {
  const first = await createOne<Board>(session, PATH, item);
  const other = first.created === null ? /set status (scheduled|active)$/.exec(first.issues[0]?.message ?? '') : null;
  return other === null ? first : createOne<Board>(session, PATH, { ...item, status: other[1] });
}

const EMPTY = { rankBy: 'metric', name: '', key: '', metricId: '', pointsSystemId: '', maxParticipants: '100', shards: '1', runUnit: '', runInterval: '1', start: '', breakdown: '' };

export function LeaderboardsPage({ session }: { session: Session }) {
  const list = useList<Board>(session, '/admin/v1/leaderboards?limit=100');
  const metricsAll = useList<MetricView>(session, '/admin/v1/metrics?limit=100').items ?? [];
  const metrics = metricsAll.filter((m) => m.status === 'active');
  const systems = useList<PointsSystemAdminView>(session, '/admin/v1/points?limit=100').items ?? [];
  const attributesAll = useList<Attribute>(session, '/admin/v1/attributes?limit=100').items;
  const attributes = (attributesAll ?? []).filter((a) => a.type === 'user');
  const [chosen, setChosen] = useState<Board | null>(null);
  // Each Rankings click opens the board's rankings afresh (read again), the same board's too.
  const [opened, setOpened] = useState(0);
  const open = (b: Board) => { setChosen(b); setOpened((n) => n + 1); };
  const [editing, setEditing] = useState<string | null>(null);
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [moveError, setMoveError] = useState('');
  const [done, setDone] = useState('');
  const [dialog, confirm] = useConfirm();
  const set = fieldSetter(form, setForm);

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setDone('');
    const run = runOf(form.runUnit, form.runInterval);
    const item = {
      name: form.name, key: form.key, rankBy: form.rankBy,
      // Empty ranks every participant (a board without a cap).
      maxParticipants: form.maxParticipants.trim() === '' ? null : Number(form.maxParticipants),
      ...shardsOf(form),
      status: statusFor(form, new Date().toISOString().slice(0, 10)),
      ...(form.rankBy === 'metric' && { metricId: form.metricId }),
      ...(form.rankBy === 'points' && { pointsSystemId: form.pointsSystemId }),
      ...(run.runUnit !== '' && run),
      ...(form.start !== '' && { start: form.start }),
      ...(form.breakdown !== '' && { breakdownAttributes: [form.breakdown] }),
    };
    let created: Board | null;
    try {
      const answer = await createBoard(session, item);
      created = answer.created;
      if (created === null) return setErrors(errorsOf(answer.issues, FIELDS));
    } catch (err) {
      return setErrors({ form: (err as Error).message });
    }
    setForm(EMPTY);
    setDone(created.status === 'scheduled' ? `${created.name} is scheduled: it starts on ${created.start}.` : `${created.name} is active from ${created.start}.`);
    await list.reload();
    open(created);
  };
  const edited = list.items?.find((b) => b.id === editing);
  const names = new Map<string, string>([...metricsAll, ...systems, ...attributes].map((x) => [x.id, x.name]));
  const rankWords = (b: Board) => ranksOf(b, (id) => names.get(id) ?? id);
  const moved = async (error: string) => {
    setMoveError(error);
    await list.reload();
  };

  return (
    <section>
      <h1>Leaderboards</h1>
      <form class="card" onSubmit={submit} aria-label="New leaderboard">
        <h2>New leaderboard</h2>
        <RankFields prefix="board" form={form} errors={errors} set={set} metrics={metrics} systems={systems} />
        <NameKey prefix="board" form={form} errors={errors} set={set} />
        <Field id="board-size" label="Participants (at most; empty: every one)" error={errors.maxParticipants}>
          <input id="board-size" type="number" min="1" max="1000" value={form.maxParticipants} placeholder="every one" onInput={set('maxParticipants')} />
        </Field>
        <ShardsField prefix="board" form={form} errors={errors} set={set} />
        <RunFields prefix="board" form={form} errors={errors} set={set} attributes={attributes}
          startHint="Empty: today, or the next Monday for a board every 7 days. A start after today schedules the board." />
        <p class="error" role="alert">{errors.form ?? ''}</p>
        <p class="muted" role="status">{done}</p>
        <button type="submit">Create leaderboard</button>
      </form>
      <ItemTable list={list} empty="No leaderboards yet." class="boards" error={moveError} errorId="board-move-error"
        columns={[
          { head: 'Key', cell: (b) => <code>{b.key}</code> }, { head: 'Name', cell: (b) => b.name },
          { head: 'Ranks by', cell: (b) => rankWords(b) }, { head: 'Runs', cell: (b) => `${runsOf(b)} from ${b.start}` }, { head: 'Status', cell: (b) => b.status },
          { head: 'Participants', cell: (b) => sizeOf(b) },
        ]}
        actions={(b) => (
          <>
            <Lifecycle session={session} board={b} onDone={moved} confirm={confirm} />
            <button type="button" class="small" aria-label={`Edit leaderboard ${b.name}`} onClick={() => setEditing(b.id)}>Edit</button>
            <button type="button" class="small" aria-label={`Rankings of ${b.name}`} onClick={() => open(b)}>Rankings</button>
          </>
        )} />
      {edited !== undefined && (
        // A lifecycle action may move the board while it is open: what may change follows its status.
        <EditBoard key={edited.id} session={session} board={edited} metrics={metrics} systems={systems}
          attributes={attributes} onSaved={() => list.reload()} onClose={() => setEditing(null)} />
      )}
      {chosen !== null && attributesAll !== null && (
        <Rankings key={`${chosen.id}-${session.tenant}-${opened}`} session={session} board={chosen}
          groupBy={chosen.breakdownAttributes.map((id) => attributes.find((a) => a.id === id) ?? { id, key: id, name: id })} />
      )}
      {dialog}
    </section>
  );
}
