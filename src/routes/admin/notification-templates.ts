/**
 * Admin API: `/admin/v1/notifications/templates` (docs/notifications.md), the batch pattern of
 * src/routes/admin/resource.ts. Texts are Liquid, checked when written
 * (src/domain/notifications/templates.ts): one that does not parse or names an unknown variable is
 * an issue naming its field. Account-wide configuration, as metrics are.
 */
import type { Deps } from '../../engine/deps.js';
import { checkFilters } from '../../domain/filters.js';
import { checkTemplate, TEXT_FIELDS } from '../../domain/notifications/templates.js';
import type { Route } from '../../http/server.js';
import {
  CHANNELS, NOTIFICATION_TYPES, type AttributeFilter, type Channel, type NotificationTemplate, type NotificationType,
} from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { resourceRoutes } from './resource.js';
import type { NotificationTemplateView } from '../../model/views.js';

const text = { type: ['string', 'null'], maxLength: 100_000 };
const fields = {
  key: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 100 },
  name: { type: 'string', minLength: 1, maxLength: 255 },
  type: { enum: [...NOTIFICATION_TYPES] },
  channel: { enum: [...CHANNELS] },
  status: { enum: ['active', 'inactive'] },
  subject: { type: ['string', 'null'], maxLength: 998 },
  html: text,
  text,
  title: { type: ['string', 'null'], maxLength: 1000 },
  body: { type: ['string', 'null'], maxLength: 4000 },
  userAttributes: {
    type: 'array', maxItems: 20,
    items: {
      type: 'object', required: ['attributeId', 'attributeValue'], additionalProperties: false,
      properties: { attributeId: { type: 'string' }, attributeValue: { type: 'string', maxLength: 1024 } },
    },
  },
};

interface TemplateInput {
  key: string;
  name?: string;
  type: NotificationType;
  channel: Channel;
  status?: 'active' | 'inactive';
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  title?: string | null;
  body?: string | null;
  userAttributes?: AttributeFilter[];
}

type TemplateChanges = Partial<TemplateInput> & { id: string };

/** The refusal of a template as a whole (its channel's fields, its texts, its filters), or null. */
function check(t: NotificationTemplate, snapshot: Snapshot): string | null {
  const other = t.channel === 'email' ? TEXT_FIELDS.push : TEXT_FIELDS.email;
  for (const field of other) if (t[field] !== null) return `${field} applies to ${t.channel === 'email' ? 'push' : 'email'} templates only`;
  if (t.channel === 'email') {
    if (!t.subject) return 'subject is required for an email template';
    if (!t.html && !t.text) return 'an email template needs html or text (or both)';
  } else if (!t.body) return 'body is required for a push template';
  return checkTemplate(t) ?? checkFilters(t.userAttributes, 'user', 'userAttributes', snapshot);
}

export function templateView(t: NotificationTemplate): NotificationTemplateView {
  return {
    id: t.id, key: t.key, name: t.name, type: t.type, channel: t.channel, status: t.status,
    ...(t.channel === 'email' ? { subject: t.subject, html: t.html, text: t.text } : { title: t.title, body: t.body }),
    userAttributes: t.userAttributes, created: t.created, updated: t.updated,
  };
}

const changed = <T>(value: T | undefined, was: T): T => (value === undefined ? was : value);

export function adminNotificationTemplateRoutes(deps: Deps): Route[] {
  return resourceRoutes<'ntemplates', TemplateInput, TemplateChanges>(deps, {
    kind: 'ntemplates',
    path: '/notifications/templates',
    label: 'Template',
    createSchema: { type: 'object', required: ['key', 'type', 'channel'], additionalProperties: false, properties: fields },
    updateSchema: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' }, ...fields } },
    build: (item, { id, now, snapshot }) => {
      const t: NotificationTemplate = {
        id, key: item.key, name: item.name ?? item.key, type: item.type, channel: item.channel, status: item.status ?? 'inactive',
        subject: item.subject ?? null, html: item.html ?? null, text: item.text ?? null, title: item.title ?? null, body: item.body ?? null,
        userAttributes: item.userAttributes ?? [], created: now, updated: now,
      };
      return check(t, snapshot) ?? t;
    },
    apply: (t, c, { now, snapshot }) => {
      const next: NotificationTemplate = {
        ...t,
        key: c.key ?? t.key, name: c.name ?? t.name, type: c.type ?? t.type, channel: c.channel ?? t.channel, status: c.status ?? t.status,
        subject: changed(c.subject, t.subject), html: changed(c.html, t.html), text: changed(c.text, t.text),
        title: changed(c.title, t.title), body: changed(c.body, t.body),
        userAttributes: c.userAttributes ?? t.userAttributes, updated: now,
      };
      return check(next, snapshot) ?? next;
    },
    view: templateView,
  });
}
