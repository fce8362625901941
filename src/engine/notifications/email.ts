/**
 * Emails over SMTP (nodemailer, to LAUREL_SMTP_URL): the transport of a process, and the message of
 * a delivery: the template's subject, HTML and text parts rendered with Liquid, the settings' from
 * and reply-to, `List-Unsubscribe` with one-click `POST` (RFC 8058), and a Message-ID made of the
 * delivery's id (a receiver that sees it twice can tell).
 */
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { renderText } from '../../domain/notifications/templates.js';
import type { NotificationTemplate } from '../../model/entities.js';
import type { EmailLinks } from './links.js';

export interface Email {
  from: string;
  replyTo: string | null;
  to: string;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  messageId: string;
}

export interface Mailer {
  send(email: Email): Promise<void>;
  close(): void;
}

/** The process's mailer, or null without LAUREL_SMTP_URL (emails off). */
export function smtpMailer(url: string | null): Mailer | null {
  if (url === null) return null;
  // Bounded waits (the URL's query may set others): a server that does not answer is a transport
  // error, tried again later.
  const transport: Transporter = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(email) {
      await transport.sendMail({
        from: email.from, replyTo: email.replyTo ?? undefined, to: email.to, subject: email.subject,
        html: email.html ?? undefined, text: email.text ?? undefined, headers: email.headers, messageId: email.messageId,
      });
    },
    close: () => transport.close(),
  };
}

/**
 * Whether a failed send may be tried again: the connection failed or the server answered with a
 * temporary (4xx) code. A permanent refusal (5xx) is not.
 */
export function isTransient(err: unknown): boolean {
  const { responseCode, code } = err as { responseCode?: number; code?: string };
  // The message or its addresses are at fault (nodemailer's own checks): no retry helps.
  if (code === 'EENVELOPE' || code === 'EMESSAGE') return false;
  return responseCode === undefined || responseCode < 500;
}

/** The email of a delivery: the template rendered with the scope. */
export function composeEmail(
  template: NotificationTemplate, scope: Record<string, unknown>, to: string, from: string, replyTo: string | null,
  links: EmailLinks, deliveryId: string,
): Email {
  const domain = /@([^>\s]+)>?$/.exec(from)?.[1] ?? 'laurel.invalid';
  return {
    from, replyTo, to,
    subject: renderText(template, 'subject', scope).replace(/[\r\n]+/g, ' ').trim(),
    html: template.html === null ? null : renderText(template, 'html', scope),
    text: template.text === null ? null : renderText(template, 'text', scope),
    headers: { 'List-Unsubscribe': `<${links.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    messageId: `<${deliveryId}@${domain}>`,
  };
}
