/**
 * The dashboard's shell: sign in with an admin key (checked against the Admin API, kept in
 * sessionStorage only), then the pages behind a navigation (hash routes: #/metrics, ...) and the
 * tenant switcher, whose choice every call sends as Tenant-ID.
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, saveSession, savedSession, type Session } from './api.js';
import { Field } from './form.js';
import { AchievementsPage } from './pages/achievements.js';
import { AnalyticsPage } from './pages/analytics.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AttributesPage } from './pages/attributes.js';
import { AuditPage } from './pages/audit.js';
import { PointsPage } from './pages/points.js';
import { StreakPage } from './pages/streak.js';
import { TENANTS_CHANGED, TenantsPage, type Tenant } from './pages/tenants.js';
import { LeaderboardsPage } from './pages/leaderboards.js';
import { LivePage } from './pages/live.js';
import { MetricsPage } from './pages/metrics.js';
import { NotificationsPage } from './pages/notifications.js';
import { UsersPage } from './pages/users.js';
import { WebhooksPage } from './pages/webhooks.js';

/** The pages, in the navigation's order: each its title and its component. */
const PAGES = {
  metrics: ['Metrics', MetricsPage], attributes: ['Attributes', AttributesPage], achievements: ['Achievements', AchievementsPage],
  streak: ['Streak', StreakPage], points: ['Points', PointsPage], leaderboards: ['Leaderboards', LeaderboardsPage], live: ['Live', LivePage],
  users: ['Users', UsersPage], analytics: ['Analytics', AnalyticsPage], tenants: ['Tenants', TenantsPage], 'api-keys': ['API keys', ApiKeysPage],
  webhooks: ['Webhooks', WebhooksPage], notifications: ['Notifications', NotificationsPage], audit: ['Audit', AuditPage],
} satisfies Record<string, [string, FunctionComponent<{ session: Session }>]>;
type Page = keyof typeof PAGES;

const pageOf = (hash: string): Page => {
  const name = hash.replace(/^#\/?/, '');
  return name in PAGES ? (name as Page) : 'metrics';
};

function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    const session = { key: key.trim(), tenant: '' };
    try {
      await call(session, 'GET', '/admin/v1/metrics?limit=1');
      onSignedIn(session);
    } catch (err) {
      setError(err instanceof ApiError && (err.status === 401 || err.status === 403)
        ? 'This key is not an admin key of this laurel.' : (err as Error).message);
    }
  };
  return (
    <main class="signin">
      <form class="card" onSubmit={submit} aria-label="Sign in">
        <h1>laurel</h1>
        <p class="muted">Sign in with an admin API key (the one <code>npm start</code> printed, or one made with the Admin API).</p>
        <Field id="admin-key" label="Admin API key" error={error}>
          <input id="admin-key" type="password" autocomplete="off" value={key} required onInput={(e) => setKey(e.currentTarget.value)} />
        </Field>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function TenantSwitcher({ session, onChange }: { session: Session; onChange: (tenant: string) => void }) {
  const [tenants, setTenants] = useState<Tenant[]>([]);
  useEffect(() => {
    const load = () => { void call<Tenant[]>(session, 'GET', '/admin/v1/tenants?limit=100').then((r) => setTenants(r.body), () => setTenants([])); };
    load();
    addEventListener(TENANTS_CHANGED, load);
    return () => removeEventListener(TENANTS_CHANGED, load);
  }, [session.key]);
  return (
    <label class="tenant">
      Tenant{' '}
      <select value={session.tenant} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Default</option>
        {tenants.filter((t) => t.status === 'active').map((t) => <option key={t.id} value={t.customerId}>{t.name}</option>)}
      </select>
    </label>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null>(savedSession());
  const [page, setPage] = useState<Page>(pageOf(location.hash));
  useEffect(() => {
    const follow = () => setPage(pageOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const use = (s: Session | null) => { saveSession(s); setSession(s); };
  if (session === null) return <SignIn onSignedIn={use} />;
  const Current = PAGES[page][1];
  return (
    <div class="shell">
      {/* The keyboard's way past the navigation; not an anchor link, which the hash routes would take for a page. */}
      <a class="skip" href="#" onClick={(e) => { e.preventDefault(); document.querySelector<HTMLElement>('main')?.focus(); }}>Skip to the page</a>
      <header>
        <strong>laurel</strong>
        <nav aria-label="Pages">
          {(Object.keys(PAGES) as Page[]).map((p) => <a key={p} href={`#/${p}`} aria-current={p === page ? 'page' : undefined}>{PAGES[p][0]}</a>)}
        </nav>
        <TenantSwitcher session={session} onChange={(tenant) => use({ ...session, tenant })} />
        <button type="button" class="small" onClick={() => use(null)}>Sign out</button>
      </header>
      <main tabIndex={-1}>
        <Current session={session} />
      </main>
    </div>
  );
}
