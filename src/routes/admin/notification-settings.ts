/**
 * Admin API: `/admin/v1/notifications/settings` (docs/notifications.md), read and replaced
 * whole (a field left out takes its default). Account-wide configuration, as metrics are.
 */
import type { Deps } from '../../engine/deps.js';
import { notificationSettingsView } from '../../domain/notifications/rules.js';
import { zoneName } from '../../domain/time.js';
import { fail } from '../../lib/errors.js';
import { isWebUrl } from '../../lib/text.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import type { NotificationSettings } from '../../model/entities.js';

interface SettingsInput {
  controlRatio?: number;
  defaultTimeZone?: string;
  email?: { from?: string | null; replyTo?: string | null } | null;
  recap?: { aggregation?: 'weekly' | 'monthly' } | null;
  publicUrl?: string | null;
}

const address = { type: ['string', 'null'], minLength: 3, maxLength: 320 };

const validateSettings = compile<SettingsInput>({
  type: 'object',
  additionalProperties: false,
  properties: {
    controlRatio: { type: 'number', minimum: 0, maximum: 1 },
    defaultTimeZone: { type: 'string', minLength: 1, maxLength: 64 },
    email: {
      type: ['object', 'null'], additionalProperties: false,
      properties: { from: address, replyTo: address },
    },
    recap: {
      type: ['object', 'null'], additionalProperties: false,
      properties: { aggregation: { enum: ['weekly', 'monthly'] } },
    },
    publicUrl: { type: ['string', 'null'], minLength: 1, maxLength: 2048 },
  },
});

/** `Name <a@b.c>` or `a@b.c`: what nodemailer takes as an address; null when it is not one. */
const ADDRESS = /^(?:[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/;

function checkAddress(field: string, value: string | null | undefined): string | null {
  if (value == null) return null;
  if (!ADDRESS.test(value)) throw fail('invalid_body', `${field} must be an email address such as "Acme <hello@acme.test>"`);
  return value;
}

function checkPublicUrl(value: string | null | undefined): string | null {
  if (value == null) return null;
  if (!isWebUrl(value)) throw fail('unprocessable', `publicUrl must be an absolute http or https URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

export function adminNotificationSettingsRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;
  return [
    {
      method: 'get', path: '/notifications/settings', family: 'admin', reach: 'configuration',
      doc: { summary: 'The notification settings', success: [200] },
      handler: () => ok(notificationSettingsView(store.current.notifications)),
    },
    {
      method: 'put', path: '/notifications/settings', family: 'admin', reach: 'configuration',
      doc: { summary: 'Replace the notification settings', body: { check: validateSettings }, success: [200], refusals: [422] },
      handler: async (req) => {
        const input = validateSettings(parseJson(req.body));
        const defaultTimeZone = input.defaultTimeZone === undefined ? 'America/New_York' : zoneName(input.defaultTimeZone);
        if (defaultTimeZone === null) throw fail('invalid_timezone', input.defaultTimeZone ?? '');
        const now = new Date(clock.now()).toISOString();
        const previous = store.current.notifications;
        const controlRatio = input.controlRatio ?? 0;
        const ratios = previous?.controlRatios ?? [];
        const settings: NotificationSettings = {
          id: 'notifications',
          controlRatio,
          controlRatios: controlRatio === (previous?.controlRatio ?? 0) ? ratios : [...ratios, [now, controlRatio]],
          defaultTimeZone,
          email: { from: checkAddress('email.from', input.email?.from), replyTo: checkAddress('email.replyTo', input.email?.replyTo) },
          recap: { aggregation: input.recap?.aggregation ?? 'weekly' },
          publicUrl: checkPublicUrl(input.publicUrl),
          // Set through /admin/v1/settings (src/routes/admin/settings.ts), not this form: kept.
          ...(previous?.branding === undefined ? {} : { branding: previous.branding }),
          ...(previous?.userActivationWindow === undefined ? {} : { userActivationWindow: previous.userActivationWindow }),
          created: previous?.created ?? now,
          updated: now,
        };
        await store.put('nsettings', previous ? 'update' : 'create', settings);
        return ok(notificationSettingsView(settings));
      },
    },
  ];
}
