/**
 * A tour of every page as a product team meets it, and the screenshots docs/dashboard.md shows:
 * a tenant's worth of configuration and ten days of forty users' activity (seeded, under the manual
 * clock ending today, so the analytics' default range holds it), then each page opened, checked
 * to show its content (no "Loading…" left, no refusal) and shot whole at 1280 pixels. The shots go
 * to test-output/dashboard/pages/; with LAUREL_DOCS_SHOTS=1 (`npm run docs:screenshots`) to
 * docs/images/dashboard/, where they are committed as this test's output. Last, docs/dashboard.md
 * shows one for every page, and each exists.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAchievements, putStreakSettings } from '../support/admin.js';
import { random } from '../support/random.js';
import { openDashboard, type Dashboard } from './browser.js';

const DOCS = 'docs/images/dashboard';
const OUT = process.env.LAUREL_DOCS_SHOTS === '1' ? DOCS : 'test-output/dashboard/pages';
const DAY_MS = 86_400_000;
const PAGES = ['Metrics', 'Attributes', 'Achievements', 'Streak', 'Points', 'Leaderboards', 'Users', 'Analytics', 'Tenants', 'API keys', 'Webhooks', 'Notifications', 'Audit'];
const slug = (title: string) => title.toLowerCase().replace(/ /g, '-');

const FIRST = ['Ada', 'Ben', 'Chloé', 'Dev', 'Eun', 'Farid', 'Gia', 'Hugo', 'Ines', 'Jon'];
const LAST = ['Moreau', 'Okafor', 'Tanaka', 'Silva'];

describe('a tour of the dashboard', () => {
  let d: Dashboard;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    d = await openDashboard({ workers: true, clock: 'manual', env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1', LAUREL_SMTP_URL: '' } });
  });
  afterAll(async () => { await d?.close(); });

  it('shows every page with a tenant\'s worth of data', { timeout: 240_000 }, async () => {
    const { page, s } = d;
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    const at = (day: number, hour: number) => new Date(today - (9 - day) * DAY_MS + hour * 3_600_000).toISOString();
    await s.setClock(at(0, 8));
    const post = async (path: string, body: unknown) => {
      const r = await s.request('POST', path, { body });
      expect(r.status, `${path}: ${r.text}`).toBeLessThan(300);
      return r.body;
    };
    const metrics = (await post('/admin/v1/metrics', [{ name: 'Lessons completed', key: 'lessons', units: 'lessons' }, { name: 'Quizzes passed', key: 'quizzes' }])).created as { id: string; key: string }[];
    const [lessons, quizzes] = metrics.map((m) => m.id);
    const attrs = (await post('/admin/v1/attributes', [{ name: 'Plan', key: 'plan', type: 'user' }, { name: 'Country', key: 'country', type: 'user' }])).created as { id: string }[];
    await createAchievements(s, [
      { name: 'First lesson', key: 'first-lesson', trigger: 'metric', metricId: lessons, metricValue: 1 },
      { name: 'Ten lessons', key: 'ten-lessons', trigger: 'metric', metricId: lessons, metricValue: 10 },
      { name: 'Quiz whiz', key: 'quiz-whiz', trigger: 'metric', metricId: quizzes, metricValue: 5 },
      { name: 'Five-day streak', key: 'streak-5', trigger: 'streak', streakLength: 5 },
      { name: 'Profile complete', key: 'profile', trigger: 'api' },
    ]);
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }], freezes: { initial: 1, max: 2, autoEarnInterval: 7, autoEarnAmount: 1 } });
    const xp = (await post('/admin/v1/points', [{
      name: 'XP', key: 'xp',
      triggers: [
        { type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'metric', metricId: quizzes, metricThreshold: 1, points: 25, status: 'active' },
      ],
      levels: [{ name: 'Bronze', key: 'bronze', points: 100 }, { name: 'Silver', key: 'silver', points: 300 }, { name: 'Gold', key: 'gold', points: 600 }],
    }])).created[0] as { id: string };
    await post('/admin/v1/leaderboards', [
      { name: 'All-time lessons', key: 'all-time', rankBy: 'metric', metricId: lessons, maxParticipants: 100, status: 'active' },
      { name: 'XP this fortnight', key: 'xp-fortnight', rankBy: 'points', pointsSystemId: xp.id, runUnit: 'day', runInterval: 14, maxParticipants: 50, status: 'active' },
      { name: 'Top by plan', key: 'by-plan', rankBy: 'metric', metricId: lessons, breakdownAttributes: [attrs[0].id], status: 'active' },
    ]);
    await post('/admin/v1/tenants', [{ customerId: 'acme', name: 'Acme Learning' }, { customerId: 'globex', name: 'Globex Academy' }]);
    await post('/admin/v1/api-keys', [{ name: 'Backend (production)', kind: 'application' }, { name: 'Acme backend', kind: 'application', tenantId: 'acme' }]);
    await post('/admin/v1/webhooks', [{ name: 'CRM sync', url: 'http://127.0.0.1:9/laurel', events: ['achievement.completed', 'points.level_changed'] }]);
    expect((await s.request('PUT', '/admin/v1/notifications/settings', { body: {
      email: { from: 'Learnly <hello@learnly.example>', replyTo: null }, publicUrl: 'https://learnly.example', defaultTimeZone: 'Europe/Paris', controlRatio: 0.1,
    } })).status).toBe(200);
    await post('/admin/v1/notifications/templates', [
      { key: 'achievement', name: 'Achievement unlocked', type: 'achievement_completed', channel: 'email', status: 'active',
        subject: 'You earned {{ achievement.name }}!', text: 'Well done, {{ user.name }}: {{ achievement.name }} is yours.' },
      { key: 'reminder', name: 'Keep your streak', type: 'streak_reminder', channel: 'email', status: 'active',
        subject: 'Your {{ streak.length }}-day streak', text: 'One lesson today keeps it going, {{ user.name }}.' },
    ]);

    // Ten days of forty users: some every day, most now and then.
    const rand = random(20);
    const users = Array.from({ length: 40 }, (_, i) => ({
      id: `user-${String(i + 1).padStart(3, '0')}`, name: `${FIRST[i % 10]} ${LAST[i % 4]}`,
      email: `${FIRST[i % 10].toLowerCase().normalize('NFD').replace(/[^a-z]/g, '')}.${LAST[i % 4].toLowerCase()}${i}@example.com`,
      tz: 'Europe/Paris', attributes: { plan: i % 3 === 0 ? 'pro' : 'free', country: ['fr', 'de', 'jp', 'br'][i % 4] },
      keen: rand(),
    }));
    for (let day = 0; day < 10; day++) {
      await s.setClock(at(day, 9));
      for (const u of users) {
        if (day < Math.floor(u.keen * 6) || rand() > 0.35 + u.keen * 0.6) continue;
        const { keen, ...user } = u;
        await s.event('lessons', user, 1 + Math.floor(rand() * 3));
        if (rand() < 0.4) await s.event('quizzes', u.id, 1);
      }
    }
    for (const id of ['user-001', 'user-004', 'user-010']) await post('/api/achievements/profile/complete', { user: { id } });
    await s.workers!.testing.drainNow();

    const ready = async (title: string) => {
      await expect.poll(() => page.getByText('Loading…').count(), { message: `${title}: still loading` }).toBe(0);
      const alerts = (await page.getByRole('alert').allTextContents()).filter((t) => t.trim() !== '');
      expect(alerts, `${title}: a refusal shown`).toEqual([]);
    };
    const shoot = async (title: string) => {
      await ready(title);
      await page.screenshot({ path: `${OUT}/${slug(title)}.png`, fullPage: true });
    };
    for (const title of PAGES) {
      await d.open(title);
      if (title === 'Points') {
        await page.getByRole('button', { name: 'Configure XP' }).click();
        await page.getByRole('region', { name: 'Configuration of XP' }).locator('table.levels').waitFor();
      } else if (title === 'Leaderboards') {
        await page.getByRole('button', { name: 'Rankings of XP this fortnight' }).click();
        await page.locator('table.rankings tbody tr').first().waitFor();
      } else if (title === 'Users') {
        await page.getByRole('region', { name: 'Find users' }).locator('table.users tbody tr').first().waitFor();
        await page.getByRole('button', { name: 'Open user user-004' }).click();
        await page.getByRole('region', { name: 'Notifications' }).waitFor();
      } else if (title === 'Analytics') {
        await expect.poll(() => page.locator('.uplot canvas').count()).toBe(3);
      } else if (title === 'Webhooks') {
        await page.locator('table.webhooks tbody tr').first().waitFor();
      } else if (title === 'Audit') {
        await s.api.audit.settle();
        await s.workers!.testing.auditNow();
        await page.getByRole('button', { name: 'Find' }).click();
        await page.locator('table.audit tbody tr').first().waitFor();
        await page.locator('table.audit tbody tr').first().getByText('Body').click();
      }
      await shoot(title);
    }
  });

  it('shows every page in docs/dashboard.md, each image there', () => {
    const doc = readFileSync('docs/dashboard.md', 'utf8');
    const shown = [...doc.matchAll(/!\[[^\]]*\]\((images\/dashboard\/[a-z-]+\.png)\)/g)].map((m) => m[1]);
    expect(shown.sort()).toEqual(PAGES.map((p) => `images/dashboard/${slug(p)}.png`).sort());
    for (const image of shown) expect(existsSync(`docs/${image}`), image).toBe(true);
  });
});
