/**
 * Users: the tenant's users found by id prefix, email and attribute, a page at a time
 * (users/search.tsx); a user opened from the list or by id (the Application API, with the admin
 * key): the profile and achievements (a completed one revoked from its row, asked first), then a
 * section each (users/): fair play (the exclusion from the rankings, voiding an event), the streak
 * calendar, points with awards and level, leaderboard positions, preferences, the notifications
 * sent, and the user's data rights (export, erasure). Past events imported from a file
 * (users/import.tsx), their progress followed.
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type Session } from '../api.js';
import { useConfirm } from '../confirm.js';
import { Field } from '../form.js';
import { useAttributes } from '../list.js';
import type { UserAchievementStatsView, UserClockView, UserView } from '../types.js';
import { moment } from '../words.js';
import { DataRightsOfUser } from './users/data-rights.js';
import { ExclusionOfUser } from './users/exclusion.js';
import { ImportHistory } from './users/import.js';
import { NotificationsOfUser } from './users/notifications.js';
import { PointsOfUser } from './users/points.js';
import { PositionsOfUser } from './users/positions.js';
import { PreferencesOfUser } from './users/preferences.js';
import { UserSearch } from './users/search.js';
import { StreakCalendar } from './users/streak.js';
import { VoidEvent } from './users/void-event.js';

/** The user opened, their time on their clock, and their achievements. */
interface Opened {
  user: UserView;
  clock: UserClockView;
  achievements: UserAchievementStatsView[];
}

/** The user's time now on their clock, and why it is not their zone's when it is not. */
function clockText(c: UserClockView): string {
  const at = `${c.date}, ${String(c.hour).padStart(2, '0')}:00 hour`;
  return c.held ? `${at} (ahead of their zone, which it waits for: they moved west)` : at;
}

function Part({ title, children }: { title: string; children: ComponentChildren }) {
  return <section class="card" aria-label={title}><h3>{title}</h3>{children}</section>;
}

export function UsersPage({ session }: { session: Session }) {
  const [id, setId] = useState('');
  const [view, setView] = useState<Opened | null>(null);
  const [error, setError] = useState('');
  const [revokeError, setRevokeError] = useState('');
  /** The changes made on the page: the sections below fair play read the user again after each. */
  const [changes, setChanges] = useState(0);
  /** The user shown was erased from this page: what it showed of them goes. */
  const [erased, setErased] = useState(false);
  const [dialog, confirm] = useConfirm();
  // Another tenant: another user (or none) by that id.
  useEffect(() => { setView(null); }, [session.tenant]);
  const attributes = useAttributes(session).user;
  const find = (e: Event) => {
    e.preventDefault();
    void open(id.trim());
  };
  /** Reads the user; `again`: the one shown, read again after a change (what is shown stays meanwhile). */
  const open = async (userId: string, again = false) => {
    setError('');
    if (again) setChanges((n) => n + 1);
    else {
      setView(null);
      setRevokeError('');
      setErased(false);
    }
    setId(userId);
    const path = `/api/users/${encodeURIComponent(userId)}`;
    try {
      const [user, clock, achievements] = await Promise.all([
        call<UserView>(session, 'GET', path),
        call<UserClockView>(session, 'GET', `/admin/v1/users/${encodeURIComponent(userId)}/clock`),
        call<UserAchievementStatsView[]>(session, 'GET', `${path}/achievements`),
      ]);
      setView({ user: user.body, clock: clock.body, achievements: achievements.body });
    } catch (err) {
      setError(err instanceof ApiError && err.status === 404 ? `No user "${userId}" in this tenant.` : (err as Error).message);
    }
  };
  const revoke = async (userId: string, a: UserAchievementStatsView) => {
    if (!await confirm({
      title: `Revoke ${a.name} from ${userId}?`, action: 'Revoke',
      body: <p>The completion leaves the user, and the achievement's completions and rarity drop. Points a trigger awarded for it stay; a metric achievement is completed again by the next event that takes the total across its threshold.</p>,
    })) return;
    setRevokeError('');
    try {
      await call(session, 'DELETE', `/admin/v1/users/${encodeURIComponent(userId)}/achievements/${encodeURIComponent(a.key)}`);
    } catch (err) {
      setRevokeError((err as Error).message);
    }
    await open(userId, true);
  };
  const u = view?.user;
  return (
    <section>
      <h1>Users</h1>
      <UserSearch session={session} attributes={attributes} onOpen={(userId) => void open(userId).then(() => document.getElementById('user-profile')?.scrollIntoView())} />
      <form class="card inline" onSubmit={find} aria-label="Open a user by id">
        <Field id="user-id" label="User id" error={error}>
          <input id="user-id" value={id} required onInput={(e) => setId(e.currentTarget.value)} />
        </Field>
        <button type="submit">Find</button>
      </form>
      <ImportHistory session={session} />
      {view !== null && u !== undefined && (
        <div key={u.id} id="user-profile" aria-label={`User ${u.id}`}>
          {erased && (
            <div class="card">
              <h2><code>{u.id}</code></h2>
              <p class="muted" role="status" aria-label="Erased user">Erased: their profile, totals and places are no longer shown (the erasure below says how far it is).</p>
            </div>
          )}
          {!erased && <div class="card">
            <h2>{u.name ?? u.id}</h2>
            <dl>
              <dt>Id</dt><dd><code>{u.id}</code></dd>
              <dt>Email</dt><dd>{u.email ?? '—'}</dd>
              <dt>Time zone</dt><dd>{u.tz ?? '—'}</dd>
              <dt>Their clock</dt><dd id="user-clock">{clockText(view.clock)}</dd>
              <dt>Attributes</dt><dd>{Object.entries(u.attributes).map(([k, v]) => `${k}: ${v}`).join(', ') || '—'}</dd>
              <dt>Created</dt><dd>{moment(u.created)}</dd>
              <dt>Control group</dt><dd>{u.control ? 'yes' : 'no'}</dd>
              <dt>Rankings</dt><dd>{u.excluded === true ? 'excluded' : 'ranked'}</dd>
            </dl>
            <h3>Achievements</h3>
            {view.achievements.length === 0 ? <p class="muted">None yet.</p> : (
              <ul class="user-achievements">{view.achievements.map((a) => (
                <li key={a.id}>{a.name}{a.achievedAt ? ` — ${moment(a.achievedAt)}` : ''}
                  {a.achievedAt !== null && (
                    <> <button type="button" class="small danger" aria-label={`Revoke achievement ${a.key}`} onClick={() => revoke(u.id, a)}>Revoke</button></>
                  )}
                </li>
              ))}</ul>
            )}
            <p class="error" id="user-achievements-error" role="alert">{revokeError}</p>
          </div>}
          {!erased && <Part title="Fair play">
            <ExclusionOfUser session={session} userId={u.id} changed={() => open(u.id, true)} />
            <VoidEvent session={session} userId={u.id} changed={() => open(u.id, true)} />
          </Part>}
          {!erased && <Fragment key={changes}>
            <Part title="Streak"><StreakCalendar session={session} userId={u.id} /></Part>
            <Part title="Points"><PointsOfUser session={session} userId={u.id} /></Part>
            <Part title="Leaderboards"><PositionsOfUser session={session} userId={u.id} /></Part>
            <Part title="Preferences"><PreferencesOfUser session={session} userId={u.id} /></Part>
            <Part title="Notifications"><NotificationsOfUser session={session} userId={u.id} /></Part>
          </Fragment>}
          <Part title="Data rights"><DataRightsOfUser session={session} userId={u.id} erased={() => setErased(true)} /></Part>
        </div>
      )}
      {dialog}
    </section>
  );
}
