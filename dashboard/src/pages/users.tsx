/** A user: found by id; the profile, the streak, and the achievements (the Application API, with the admin key). */
import { useState } from 'preact/hooks';
import { ApiError, call, type Session } from '../api.js';
import { Field } from '../form.js';

interface UserView {
  user: { id: string; name: string | null; email: string | null; tz: string | null; created: string; control: boolean };
  streak: { length: number; frequency: string; expires: string | null } | null;
  achievements: { id: string; name: string; achievedAt: string | null }[];
}

export function UsersPage({ session }: { session: Session }) {
  const [id, setId] = useState('');
  const [view, setView] = useState<UserView | null>(null);
  const [error, setError] = useState('');
  const find = async (e: Event) => {
    e.preventDefault();
    setError('');
    setView(null);
    const path = `/api/users/${encodeURIComponent(id)}`;
    try {
      const [user, achievements, streak] = await Promise.all([
        call<UserView['user']>(session, 'GET', path),
        call<UserView['achievements']>(session, 'GET', `${path}/achievements`),
        call<UserView['streak']>(session, 'GET', `${path}/streak`).catch(() => ({ body: null })),
      ]);
      setView({ user: user.body, achievements: achievements.body, streak: streak.body });
    } catch (err) {
      setError(err instanceof ApiError && err.status === 404 ? `No user "${id}" in this tenant.` : (err as Error).message);
    }
  };
  return (
    <section>
      <h1>Users</h1>
      <form class="card inline" onSubmit={find} aria-label="Find a user">
        <Field id="user-id" label="User id" error={error}>
          <input id="user-id" value={id} required onInput={(e) => setId(e.currentTarget.value)} />
        </Field>
        <button type="submit">Find</button>
      </form>
      {view !== null && (
        <div class="card" aria-label={`User ${view.user.id}`}>
          <h2>{view.user.name ?? view.user.id}</h2>
          <dl>
            <dt>Id</dt><dd><code>{view.user.id}</code></dd>
            <dt>Email</dt><dd>{view.user.email ?? '—'}</dd>
            <dt>Time zone</dt><dd>{view.user.tz ?? '—'}</dd>
            <dt>Created</dt><dd>{view.user.created}</dd>
            <dt>Control group</dt><dd>{view.user.control ? 'yes' : 'no'}</dd>
            <dt>Streak</dt><dd>{view.streak === null ? '—' : `${view.streak.length} (${view.streak.frequency})`}</dd>
          </dl>
          <h3>Achievements</h3>
          {view.achievements.length === 0 ? <p class="muted">None yet.</p> : (
            <ul>{view.achievements.map((a) => <li key={a.id}>{a.name}{a.achievedAt ? ` — ${a.achievedAt}` : ''}</li>)}</ul>
          )}
        </div>
      )}
    </section>
  );
}
