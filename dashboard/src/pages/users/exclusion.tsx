/**
 * A user's exclusion from the rankings (`/admin/v1/users/:id/exclusion`): whether they are
 * excluded, since when and why; **Exclude**, with a reason, asked first (they leave every board,
 * league and streak ranking at once), and **Include again** (they re-enter with their next event).
 * `changed` hears of either, so the page reads the user again (`excluded: true` in their profile).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import { useConfirm } from '../../confirm.js';
import { Field } from '../../form.js';
import type { ExclusionView } from '../../types.js';
import { moment } from '../../words.js';

export function ExclusionOfUser({ session, userId, changed }: { session: Session; userId: string; changed: () => unknown }) {
  const path = `/admin/v1/users/${encodeURIComponent(userId)}/exclusion`;
  const [held, setHeld] = useState<ExclusionView | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');
  const [dialog, confirm] = useConfirm();
  const load = () => call<ExclusionView>(session, 'GET', path).then((r) => setHeld(r.body), (err: Error) => setError(err.message));
  useEffect(() => { void load(); }, [userId, session.tenant]);
  const write = async (method: 'PUT' | 'DELETE', body?: unknown) => {
    setError('');
    try {
      await call(session, method, path, body);
      setReason('');
    } catch (err) {
      setError((err as Error).message);
    }
    await load();
    await changed();
  };
  const exclude = async (e: Event) => {
    e.preventDefault();
    if (!await confirm({
      title: `Exclude ${userId} from the rankings?`, action: 'Exclude',
      body: <p>They leave every leaderboard, league and streak ranking at once (runs not finalised yet are ranked again without them) and are placed on none while excluded. Their events still count toward their own totals, streak, achievements and points; finalised runs keep their winners.</p>,
    })) return;
    await write('PUT', { reason });
  };
  if (held === null) return <p class="muted" role="status">{error === '' ? 'Loading…' : error}</p>;
  if (held.excluded) {
    return (
      <div class="exclusion">
        <p>Excluded from the rankings since {moment(held.excludedAt ?? '')}: {held.reason}</p>
        <p class="error" role="alert">{error}</p>
        <button type="button" onClick={() => write('DELETE')}>Include again</button>
        <p class="hint">They re-enter each ranking with their next event that ranks there.</p>
      </div>
    );
  }
  return (
    <form class="inline" aria-label="Exclude the user" onSubmit={exclude}>
      <p>Ranked as everyone.</p>
      <Field id="exclusion-reason" label="Reason for an exclusion" error={error}>
        <input id="exclusion-reason" value={reason} required maxLength={500} onInput={(e) => setReason(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="danger">Exclude</button>
      {dialog}
    </form>
  );
}
