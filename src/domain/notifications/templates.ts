/**
 * Notification templates: Liquid (liquidjs) texts, checked when an admin writes them (a text that
 * does not parse, or names a top-level variable its type does not have, is refused naming the
 * field) and rendered at send time. Templates read no files: `include` and `render` find nothing
 * (an in-memory map with no entries), and rendering is bounded in time and memory.
 */
import { Liquid, type Template } from 'liquidjs';
import type { NotificationTemplate, NotificationType } from '../../model/entities.js';

const limits = { parseLimit: 100_000, renderLimit: 1000, memoryLimit: 10_000_000 };
/** Texts (subject, text part, push title and body) as written. */
const plain = new Liquid({ templates: {}, strictFilters: true, ownPropertyOnly: true, ...limits });
/** The HTML part: every output escaped (a user's name may hold `<`). */
const html = new Liquid({ templates: {}, strictFilters: true, ownPropertyOnly: true, outputEscape: 'escape', ...limits });

/** Variables every template may use. */
const COMMON = ['user', 'metrics', 'points', 'unsubscribeUrl', 'preferencesUrl'];

/** The top-level variables of each type (docs/notifications.md lists their fields). */
export const TEMPLATE_VARIABLES: Record<NotificationType, string[]> = {
  achievement_completed: [...COMMON, 'achievement', 'achievements'],
  streak_reminder: [...COMMON, 'streak'],
  reactivation: [...COMMON, 'streak', 'reactivation'],
  recap: [...COMMON, 'streak', 'achievements', 'recap'],
};

/** The text fields of a template, by channel. */
export const TEXT_FIELDS = { email: ['subject', 'html', 'text'], push: ['title', 'body'] } as const;

type TextField = 'subject' | 'html' | 'text' | 'title' | 'body';

function engineOf(field: TextField): Liquid {
  return field === 'html' ? html : plain;
}

/** Null when the text parses and names only the type's variables; else the refusal, naming the field. */
export function checkTemplateText(type: NotificationType, field: TextField, text: string): string | null {
  let parsed: Template[];
  try {
    parsed = engineOf(field).parse(text);
  } catch (err) {
    return `${field} is not a valid Liquid template: ${(err as Error).message.split('\n')[0]}`;
  }
  let names: string[];
  try {
    names = engineOf(field).globalVariablesSync(parsed);
  } catch (err) {
    return `${field} is not a valid Liquid template: ${(err as Error).message.split('\n')[0]}`;
  }
  const known = TEMPLATE_VARIABLES[type];
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    return `${field} names ${unknown.map((n) => `"${n}"`).join(', ')}, not a variable of ${type} templates (${known.join(', ')})`;
  }
  return null;
}

/** The refusal of the template's texts (the first that fails), or null. */
export function checkTemplate(t: Pick<NotificationTemplate, 'type' | TextField>): string | null {
  for (const field of ['subject', 'html', 'text', 'title', 'body'] as const) {
    const text = t[field];
    if (text === null) continue;
    const refusal = checkTemplateText(t.type, field, text);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** Renders one text of a template with the scope ('' for a text the template does not have). */
export function renderText(t: NotificationTemplate, field: TextField, scope: Record<string, unknown>): string {
  const text = t[field];
  if (text === null || text === '') return '';
  const engine = engineOf(field);
  return String(engine.renderSync(engine.parse(text), scope));
}
