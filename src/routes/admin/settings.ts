/**
 * Admin API 1.26.0's organization settings and environments (docs/api.md, "Differences from the specs"):
 * `GET`/`PATCH /admin/v1/settings` (views of the notification settings' record:
 * src/domain/settings.ts) and `GET /admin/v1/environments`. Account-wide configuration.
 */
import type { Deps } from '../../engine/deps.js';
import { FONTS, patchSettings, settingsView, type SettingsPatch } from '../../domain/settings.js';
import { fail } from '../../lib/errors.js';
import { isWebUrl } from '../../lib/text.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';

const image = {
  type: ['object', 'null'], required: ['url'],
  properties: { url: { type: 'string', minLength: 1, maxLength: 2048 } },
};

const validatePatch = compile<SettingsPatch>({
  type: 'object',
  properties: {
    branding: {
      type: 'object',
      properties: {
        appName: { type: 'string', minLength: 1, maxLength: 255 },
        appUrl: { type: 'string', minLength: 1, maxLength: 2048 },
        brandColor: { type: 'string', minLength: 1, maxLength: 64 },
        font: { enum: [...FONTS] },
        logo: image,
        appIcon: image,
      },
    },
    experimentation: {
      type: 'object',
      properties: {
        controlRatio: { type: 'integer', minimum: 0, maximum: 100 },
        userActivationWindow: { type: 'integer', minimum: 3, maximum: 30 },
      },
    },
    aggregationPeriod: { enum: ['weekly', 'monthly'] },
  },
});

/** A brand colour Trophy takes: `#RGB`, `#RRGGBB`, `rgb(r,g,b)` or `rgba(r,g,b,a)`. */
const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;
const RGBA = /^rgba\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(0|1|0?\.\d+|1\.0+)\s*\)$/;

function checkColor(value: string): void {
  if (HEX.test(value)) return;
  const m = RGB.exec(value) ?? RGBA.exec(value);
  if (m !== null && [m[1], m[2], m[3]].every((c) => Number(c) <= 255)) return;
  throw fail('unprocessable', `branding.brandColor must be #RGB, #RRGGBB, rgb(r,g,b) or rgba(r,g,b,a), got "${value}"`);
}

function checkUrl(field: string, value: string): void {
  if (!isWebUrl(value)) throw fail('unprocessable', `${field} must be an absolute http or https URL, got "${value}"`);
}

const BRANDING_SCHEMA = {
  type: 'object', required: ['appName', 'appUrl', 'brandColor', 'font', 'logo', 'appIcon'],
  properties: {
    appName: { type: 'string' }, appUrl: { type: 'string' }, brandColor: { type: 'string' }, font: { enum: [...FONTS] },
    logo: image, appIcon: image,
  },
};

const SETTINGS_SCHEMA = {
  type: 'object', required: ['branding', 'experimentation', 'aggregationPeriod'],
  properties: {
    branding: BRANDING_SCHEMA,
    experimentation: {
      type: 'object', required: ['controlRatio', 'userActivationWindow'],
      properties: { controlRatio: { type: 'integer', minimum: 0, maximum: 100 }, userActivationWindow: { type: 'integer', minimum: 3, maximum: 30 } },
    },
    aggregationPeriod: { enum: ['weekly', 'monthly'] },
  },
};

/** The environments `GET /environments` lists: laurel serves one. */
const ENVIRONMENTS = [{ name: 'Production', key: 'production', priority: 1 }];

export function adminSettingsRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;
  return [
    {
      method: 'get', path: '/environments', family: 'admin', reach: 'configuration',
      doc: {
        summary: 'The environments: laurel serves one, production', success: [200],
        response: {
          type: 'array',
          items: { type: 'object', required: ['name', 'key', 'priority'], properties: { name: { type: 'string' }, key: { type: 'string' }, priority: { type: 'integer' } } },
        },
      },
      handler: () => ok(ENVIRONMENTS),
    },
    {
      method: 'get', path: '/settings', family: 'admin', reach: 'configuration',
      doc: { summary: 'Branding, experimentation and aggregation settings', success: [200], response: SETTINGS_SCHEMA },
      handler: () => ok(settingsView(store.current.notifications)),
    },
    {
      method: 'patch', path: '/settings', family: 'admin', reach: 'configuration',
      doc: {
        summary: 'Change the branding, experimentation and aggregation settings (fields left out stay)',
        description: '`experimentation.controlRatio` is the notification settings\' control ratio as an integer percentage; '
          + '`aggregationPeriod` is their `recap.aggregation`.',
        body: { check: validatePatch }, success: [200], refusals: [422], response: SETTINGS_SCHEMA,
      },
      handler: async (req) => {
        const patch = validatePatch(parseJson(req.body));
        const b = patch.branding;
        if (b?.brandColor !== undefined) checkColor(b.brandColor);
        if (b?.appUrl !== undefined) checkUrl('branding.appUrl', b.appUrl);
        if (b?.logo) checkUrl('branding.logo.url', b.logo.url);
        if (b?.appIcon) checkUrl('branding.appIcon.url', b.appIcon.url);
        const previous = store.current.notifications;
        const next = patchSettings(previous, patch, new Date(clock.now()).toISOString());
        await store.put('nsettings', previous ? 'update' : 'create', next);
        return ok(settingsView(next));
      },
    },
  ];
}
