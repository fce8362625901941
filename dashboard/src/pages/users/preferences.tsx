/**
 * A user's preferences (GET /api/users/:id/preferences): the channels of each notification type,
 * changed with a checkbox each and saved with PATCH (a type never set counts as both channels on),
 * and their own streak rule if any.
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';
import type { NotificationType, PreferencesView as Preferences } from '../../types.js';
import { typeWords } from '../../words.js';

const TYPES: NotificationType[] = ['achievement_completed', 'streak_reminder', 'reactivation', 'recap'];
const CHANNELS = ['email', 'push'];

export function PreferencesOfUser({ session, userId }: { session: Session; userId: string }) {
  const path = `/api/users/${encodeURIComponent(userId)}/preferences`;
  const [prefs, setPrefs] = useState<Preferences | null | undefined>(undefined);
  const [saved, setSaved] = useState('');
  const load = () => call<Preferences>(session, 'GET', path).then((r) => setPrefs(r.body), () => setPrefs(null));
  useEffect(() => { void load(); }, [userId, session.tenant]);
  const save = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const notifications = Object.fromEntries(TYPES.map((t) => [t, CHANNELS.filter((c) => data.has(`${t}:${c}`))]));
    const r = await call<{ error?: string }>(session, 'PATCH', path, { notifications });
    setSaved(r.status === 200 ? 'Saved.' : r.body.error ?? `Not saved (HTTP ${r.status})`);
    await load();
  };
  if (prefs === undefined) return <p class="muted">Loading…</p>;
  if (prefs === null) return <p class="muted">Not readable.</p>;
  // The types set, in the answer's order.
  const types = Object.entries(prefs.notifications).filter((e): e is [string, string[]] => e[1] !== undefined);
  const streak = prefs.streak;
  const on = (type: NotificationType, channel: string) => prefs.notifications[type]?.includes(channel) ?? true;
  return (
    <>
    <form key={userId + JSON.stringify(prefs.notifications)} class="user-preferences-form" onSubmit={save} aria-label="Notification preferences">
      <table>
        <thead><tr><th>Type</th>{CHANNELS.map((c) => <th key={c}>{c}</th>)}</tr></thead>
        <tbody>{TYPES.map((t) => (
          <tr key={t}><td>{typeWords(t)}</td>{CHANNELS.map((c) => (
            <td key={c}><input type="checkbox" name={`${t}:${c}`} aria-label={`${typeWords(t)} by ${c}`} defaultChecked={on(t, c)} /></td>
          ))}</tr>
        ))}</tbody>
      </table>
      <button type="submit">Save preferences</button> <span role="status">{saved}</span>
    </form>
    <dl class="user-preferences">
      {types.length === 0 ? <><dt>Notifications</dt><dd>the defaults</dd></>
        : types.map(([type, channels]) => <Fragment key={type}><dt>{typeWords(type)}</dt><dd>{channels.length === 0 ? 'none' : channels.join(', ')}</dd></Fragment>)}
      <dt>Own streak rule</dt>
      <dd>{streak === undefined ? 'none (the tenant\'s)' : streak.enabled === false ? 'streak turned off'
        : `${streak.evaluationMode ?? ''} ${(streak.metrics ?? []).map((m) => `${m.key} ≥ ${m.threshold}`).join(', ')}`.trim()}</dd>
    </dl>
    </>
  );
}
