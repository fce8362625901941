/**
 * A league board on the leaderboards page in a real browser, under the manual clock: the run's
 * tiers, each with its cohorts and participants, a cohort's participants ranked; the run once the
 * workers finalised it, with how many of each tier and cohort moved up, down or stayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s leagues', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('shows a league\'s tiers, cohorts and participants, then the moves once the run is final', async () => {
    const { page, s } = d;
    await s.setClock('2026-05-04T09:00:00Z');
    const { plays } = await s.metrics('plays');
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'League', key: 'league', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-05-01', runUnit: 'day', runInterval: 1,
      league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver', demote: 1 }] },
    });
    // Six new users in bronze: the first five fill bronze-1, the sixth opens bronze-2.
    for (const [id, value] of [['ann', 5], ['bob', 3], ['cid', 4], ['dan', 1], ['eve', 2], ['fay', 7]] as const) {
      await s.event('plays', { id, name: id[0]!.toUpperCase() + id.slice(1) }, value);
    }

    await d.open('Leaderboards');
    await page.getByRole('button', { name: 'Rankings of League' }).click();
    const league = page.getByRole('region', { name: 'League of the run' });
    const tier = (name: string) => league.getByRole('rowgroup', { name: `Tier ${name}` }).getByRole('row');
    await expect.poll(() => tier('Bronze').allTextContents()).toEqual([
      'Bronze bronze2 cohorts6not final yet',
      'bronze-15not final yetParticipants',
      'bronze-21not final yetParticipants',
    ]);
    expect(await tier('Silver').allTextContents()).toEqual(['Silver silver0 cohorts0not final yet']);
    expect(await league.locator('p.league-state').textContent()).toBe('Cohorts of at most 5; not final yet');
    await league.getByRole('button', { name: 'Participants of bronze-1' }).click();
    const cohort = league.getByRole('table', { name: 'Participants of bronze-1' });
    await expect.poll(() => cohort.locator('tbody tr').allTextContents()).toEqual(['1Ann5', '2Cid4', '3Bob3', '4Eve2', '5Dan1']);
    expect(await cohort.locator('caption').textContent()).toBe('bronze-1: 5 participants');
    await league.getByRole('button', { name: 'Participants of bronze-2' }).click();
    await expect.poll(() => league.getByRole('table', { name: 'Participants of bronze-2' }).locator('tbody tr').allTextContents()).toEqual(['1Fay7']);
    expect(await league.getByRole('table', { name: 'Participants of bronze-1' }).count()).toBe(0);
    await d.shot('leaderboards-league');

    // 36 hours after the run's day began in UTC it is final: the first of the full cohort moves up;
    // Fay, alone in bronze-2, stays (a cohort of one moves nobody).
    await s.setClock('2026-05-05T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    await page.reload();
    await page.getByRole('button', { name: 'Rankings of League' }).click();
    await page.getByRole('button', { name: 'Previous run' }).click();
    await expect.poll(() => tier('Bronze').allTextContents()).toEqual([
      'Bronze bronze2 cohorts61 promoted, 0 demoted, 5 stayed',
      'bronze-151 promoted, 0 demoted, 4 stayedParticipants',
      'bronze-210 promoted, 0 demoted, 1 stayedParticipants',
    ]);
    expect(await tier('Silver').allTextContents()).toEqual(['Silver silver0 cohorts00 promoted, 0 demoted, 0 stayed']);
    expect(await league.locator('p.league-state').textContent()).toBe('Cohorts of at most 5; final: its users moved for the next run');
    await league.getByRole('button', { name: 'Participants of bronze-1' }).click();
    await expect.poll(() => league.getByRole('table', { name: 'Participants of bronze-1' }).locator('tbody tr').allTextContents())
      .toEqual(['1Ann5', '2Cid4', '3Bob3', '4Eve2', '5Dan1']);
    // The current run has nobody in it yet.
    await page.getByLabel('Run of the day (empty: the current one)').fill('');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => tier('Bronze').allTextContents()).toEqual(['Bronze bronze0 cohorts0not final yet']);
    await d.shot('leaderboards-league-final');
  });
});
