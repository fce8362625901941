/**
 * The organization's settings as Trophy's Admin API 1.26.0 shows them (`/admin/v1/settings`,
 * docs/api.md "Differences from the specs"): branding, experimentation and the aggregation period. They are
 * views of the notification settings' record, not a record of their own: `controlRatio` is the
 * notification settings' ratio (0..1) as an integer percentage, `aggregationPeriod` is their
 * `recap.aggregation`. No I/O here.
 */
import type { Branding, NotificationSettings } from '../model/entities.js';
import { DEFAULT_TIME_ZONE } from './notifications/rules.js';

export const FONTS = [
  'MODERN_SANS', 'BOOK_SANS', 'ORGANIC_SANS', 'GEOMETRIC_SANS', 'HEAVY_SANS', 'ROUNDED_SANS', 'MODERN_SERIF', 'BOOK_SERIF', 'MONOSPACE',
] as const;

export const DEFAULT_BRANDING: Branding = {
  appName: '', appUrl: '', brandColor: '#000000', font: 'MODERN_SANS', logo: null, appIcon: null,
};

export const DEFAULT_ACTIVATION_WINDOW = 14;

/** The settings as `GET /admin/v1/settings` answers them (Trophy's AdminSettings). */
export function settingsView(s: NotificationSettings | null) {
  const b = s?.branding ?? DEFAULT_BRANDING;
  return {
    branding: {
      appName: b.appName, appUrl: b.appUrl, brandColor: b.brandColor, font: b.font,
      logo: b.logo === null ? null : { url: b.logo.url }, appIcon: b.appIcon === null ? null : { url: b.appIcon.url },
    },
    experimentation: {
      controlRatio: Math.round((s?.controlRatio ?? 0) * 100),
      userActivationWindow: s?.userActivationWindow ?? DEFAULT_ACTIVATION_WINDOW,
    },
    aggregationPeriod: s?.recap.aggregation ?? 'weekly',
  };
}

/** What `PATCH /admin/v1/settings` takes: every field optional, nested objects merged field by field. */
export interface SettingsPatch {
  branding?: Partial<Branding>;
  experimentation?: { controlRatio?: number; userActivationWindow?: number };
  aggregationPeriod?: 'weekly' | 'monthly';
}

/**
 * The notification settings with a patch applied, at `now` (ISO-8601). A new control ratio is
 * appended to the ratios' history, as the notification settings' own PUT does, so existing users
 * keep their group.
 */
export function patchSettings(previous: NotificationSettings | null, patch: SettingsPatch, now: string): NotificationSettings {
  const base: NotificationSettings = previous ?? {
    id: 'notifications', controlRatio: 0, controlRatios: [], defaultTimeZone: DEFAULT_TIME_ZONE,
    email: { from: null, replyTo: null }, recap: { aggregation: 'weekly' }, publicUrl: null, created: now, updated: now,
  };
  const next: NotificationSettings = { ...base, updated: now };
  if (patch.branding !== undefined) next.branding = { ...(base.branding ?? DEFAULT_BRANDING), ...patch.branding };
  const percent = patch.experimentation?.controlRatio;
  if (percent !== undefined) {
    const ratio = percent / 100;
    if (ratio !== base.controlRatio) {
      next.controlRatio = ratio;
      next.controlRatios = [...base.controlRatios, [now, ratio]];
    }
  }
  const window = patch.experimentation?.userActivationWindow;
  if (window !== undefined) next.userActivationWindow = window;
  if (patch.aggregationPeriod !== undefined) next.recap = { aggregation: patch.aggregationPeriod };
  return next;
}
