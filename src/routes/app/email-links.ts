/**
 * The links of emails, without a key: the token in the path names the user and the tenant, signed
 * (src/domain/notifications/link-tokens.ts). `POST /unsubscribe/{token}` unsubscribes from all
 * emails at once and keeps the address (RFC 8058 one-click: mail clients post
 * `List-Unsubscribe=One-Click`, as a form); `GET` on it and
 * `GET /preferences/{token}` answer the preferences page, whose form posts to
 * `/preferences/{token}` and saves what `PATCH /users/{id}/preferences` saves.
 */
import type { Deps } from '../../engine/deps.js';
import { signingSecret } from '../../engine/notifications/links.js';
import { identifyUser } from '../../engine/users/identify.js';
import { updatePreferences } from '../../engine/users/preferences.js';
import { channelsFor } from '../../domain/notifications/rules.js';
import { verifyToken, type TokenSubject } from '../../domain/notifications/link-tokens.js';
import { preferencesOfForm, preferencesPage } from '../../domain/notifications/preferences-page.js';
import { isSubscribed, prepareIdentification, type UserHash } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import { LINK_PAGE } from '../../http/page-headers.js';
import { ok } from '../../http/reply.js';
import type { Reply, Request, Route } from '../../http/server.js';
import { userHash } from '../../engine/users/read.js';
import { NOTIFICATION_TYPES, type Channel, type NotificationType } from '../../model/entities.js';

const HTML = 'text/html; charset=utf-8';

/** What the pages of an email's links say of themselves: a signed token in the path, an HTML page. */
const LINK = {
  params: { token: { schema: { type: 'string' }, description: 'The signed token of the email\'s link' } },
  success: [200], contentType: HTML, refusals: [404],
} as const;

export function emailLinkRoutes(deps: Deps): Route[] {
  const { store } = deps;

  /** The user a path's token names; 404 when the token is not one laurel signed, or the user is gone. */
  async function subjectOf(req: Request): Promise<TokenSubject & { hash: UserHash }> {
    const token = req.params[0];
    const subject = verifyToken(await signingSecret(deps), token);
    if (subject === null || (subject.tenant !== '_' && !store.current.tenants.has(subject.tenant))) {
      throw fail('not_found', 'This link');
    }
    const hash = await userHash(deps, subject.tenant, subject.userId);
    if (hash === null) throw fail('not_found', 'This link');
    return { ...subject, hash };
  }

  const channelsOf = (h: UserHash) =>
    Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, channelsFor(h, t)])) as Record<NotificationType, Channel[]>;

  function page(req: Request, h: UserHash, notice: string): Reply {
    const hasDevice = h.dt !== undefined && (JSON.parse(h.dt) as string[]).length > 0;
    const body = preferencesPage(`/preferences/${req.params[0]}`, {
      channels: channelsOf(h), subscribed: isSubscribed(h), hasEmail: Boolean(h.email), hasDevice, notice,
    });
    return { status: 200, body, contentType: HTML, headers: LINK_PAGE };
  }

  const show = async (req: Request) => page(req, (await subjectOf(req)).hash, '');

  return [
    { method: 'get', path: '/preferences/:token', family: 'ops', secretPath: true, doc: { ...LINK, summary: 'The preferences page of an email\'s link' }, handler: show },
    { method: 'get', path: '/unsubscribe/:token', family: 'ops', secretPath: true, doc: { ...LINK, summary: 'The preferences page, from an email\'s unsubscribe link' }, handler: show },
    {
      method: 'post', path: '/unsubscribe/:token', family: 'ops', forms: true, secretPath: true,
      doc: { summary: 'One-click unsubscribe (RFC 8058), from an email\'s link', params: LINK.params, success: [200], refusals: [404] },
      handler: async (req) => {
        const { tenant, userId } = await subjectOf(req);
        await updatePreferences(deps, tenant, userId, {}, null, true);
        return ok({ unsubscribed: true });
      },
    },
    {
      method: 'post', path: '/preferences/:token', family: 'ops', forms: true, secretPath: true,
      doc: { ...LINK, summary: 'Save the preferences page\'s form' },
      handler: async (req) => {
        const { tenant, userId, hash } = await subjectOf(req);
        const form = preferencesOfForm(req.body ?? '', channelsOf(hash));
        if (form === null) throw fail('invalid_body', 'the form may name only notification types and their channels, or a choice');
        if (form.choice === 'unsubscribe') {
          return page(req, await updatePreferences(deps, tenant, userId, {}, null, true), 'You will get no more emails.');
        }
        if (form.choice !== 'types') {
          const user = { subscribeToEmails: true };
          const { hash: h } = await identifyUser(deps, tenant, 'update', userId, user, prepareIdentification(user, store.current));
          return page(req, h, 'You are subscribed again.');
        }
        const h = await updatePreferences(deps, tenant, userId, form.notifications, null);
        return page(req, h, 'Your preferences are saved.');
      },
    },
  ];
}
