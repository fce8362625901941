/** A user's preferences (GET /api/users/:id/preferences): the channels of each notification type, and their own streak rule if any. */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Session } from '../../api.js';

interface Preferences {
  notifications: Record<string, string[]>;
  streak?: { enabled?: boolean; evaluationMode?: string; metrics?: { key: string; threshold: number }[] };
}

export function PreferencesOfUser({ session, userId }: { session: Session; userId: string }) {
  const [prefs, setPrefs] = useState<Preferences | null | undefined>(undefined);
  useEffect(() => {
    void call<Preferences>(session, 'GET', `/api/users/${encodeURIComponent(userId)}/preferences`).then((r) => setPrefs(r.body), () => setPrefs(null));
  }, [userId, session.tenant]);
  if (prefs === undefined) return <p class="muted">Loading…</p>;
  if (prefs === null) return <p class="muted">Not readable.</p>;
  const types = Object.entries(prefs.notifications);
  const streak = prefs.streak;
  return (
    <dl class="user-preferences">
      {types.length === 0 ? <><dt>Notifications</dt><dd>the defaults</dd></>
        : types.map(([type, channels]) => <Fragment key={type}><dt>{type}</dt><dd>{channels.length === 0 ? 'none' : channels.join(', ')}</dd></Fragment>)}
      <dt>Own streak rule</dt>
      <dd>{streak === undefined ? 'none (the tenant\'s)' : streak.enabled === false ? 'streak turned off'
        : `${streak.evaluationMode ?? ''} ${(streak.metrics ?? []).map((m) => `${m.key} ≥ ${m.threshold}`).join(', ')}`.trim()}</dd>
    </dl>
  );
}
