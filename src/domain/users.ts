/**
 * Users: the identification fields a request may carry, their checks (attribute keys, time zone,
 * subscribeToEmails), the user hash layout in Redis and the wire shape of a User.
 *
 * User hash fields: id, created, updated (absent until the user is updated: `created`), email, name,
 * tz, sub ('0' unsubscribed; '1' or absent subscribed), dt (JSON device tokens), a:<attribute key>,
 * n:<notification type> (JSON channels), m:<metric id> (metric total), s:o and s:ov (streak
 * preferences: src/domain/streaks/preferences.ts).
 */
import { attributeField, attributeOfField, EXCLUSION_FIELD } from '../model/fields.js';
import { fail } from '../lib/errors.js';
import { zoneName } from './time.js';
import { streakPreferencesOf, streakPreferencesView } from './streaks/preferences.js';
import type { Snapshot } from '../model/snapshot.js';
import { NOTIFICATION_TYPES, type NotificationType } from '../model/entities.js';
import type { PreferencesView, UserView } from '../model/views.js';

export type { UserView };

export interface Identification {
  email?: string | null;
  name?: string | null;
  tz?: string | null;
  subscribeToEmails?: boolean | null;
  deviceTokens?: string[] | null;
  attributes?: Record<string, string> | null;
}

export interface UpsertedUser extends Identification {
  id: string;
}

export const USER_ID_MAX = 255;

const attributeValues = {
  type: ['object', 'null'],
  additionalProperties: { type: 'string', maxLength: 1024 },
  maxProperties: 100,
};

/** JSON Schema properties of an identification (null means "not provided", as the SDK sends it). */
export const identificationProperties = {
  email: { type: ['string', 'null'], maxLength: 320, format: 'email' },
  name: { type: ['string', 'null'], maxLength: 255 },
  tz: { type: ['string', 'null'], maxLength: 64 },
  subscribeToEmails: { type: ['boolean', 'null'] },
  deviceTokens: { type: ['array', 'null'], items: { type: 'string', maxLength: 4096 }, maxItems: 100 },
  attributes: attributeValues,
};

/** The fields of an identification, in the order the event log writes them. */
export const IDENTIFICATION_FIELDS = Object.keys(identificationProperties) as (keyof Identification)[];

export const userIdSchema = { type: 'string', minLength: 1, maxLength: USER_ID_MAX };

/** A user id in a path, as a route's description names it (checkUserId checks it). */
export const USER_ID_PARAM = { schema: userIdSchema, description: `The user's id (1 to ${USER_ID_MAX} characters)` };

/** The `userAttributes` query parameter parseUserAttributes reads, as a route's description lists it. */
export const USER_ATTRIBUTES_QUERY = {
  name: 'userAttributes', schema: { type: 'string', maxLength: 10_000 },
  description: 'key:value pairs of user attributes, separated by commas; every pair must match',
};

export const upsertedUserSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: userIdSchema, ...identificationProperties },
};

export const identificationSchema = {
  type: 'object',
  properties: { id: { type: ['string', 'null'] }, ...identificationProperties },
};

/**
 * A user id in a path: 1 to USER_ID_MAX characters, counted as the bodies' schemas count them (Ajv's
 * maxLength: code points, so an emoji is one character, not two UTF-16 units).
 */
/**
 * The users `GET /streaks` names in its `userIds` query parameters: repeated (the SDK's form, one id
 * each: an id may hold a comma), or once, comma-separated; empty values left out first. The key
 * check (src/http/subject.ts) and the handler read them with this one function, so the users a key
 * is checked for are the users read.
 */
export function userIdsOf(values: string[]): string[] {
  const given = values.filter(Boolean);
  return [...new Set((given.length === 1 ? given[0].split(',') : given).filter(Boolean))];
}

/**
 * The users a query's `userIds` lists (userIdsOf), checked: no empty item in a comma-separated list
 * (its schema's items have a length of 1 at least), at least one, at most `max`, each a user id;
 * else a 400 invalid_query.
 */
export function listedUserIds(values: string[], max: number): string[] {
  const given = values.filter(Boolean);
  if (given.length === 1 && given[0].split(',').includes('')) {
    throw fail('invalid_query', 'userIds: an empty item (a comma at an end, or two in a row) names no user');
  }
  const userIds = userIdsOf(values);
  if (userIds.length === 0) throw fail('invalid_query', 'userIds is required: one or more user ids');
  if (userIds.length > max) throw fail('invalid_query', `userIds may list at most ${max} users`);
  // As a path takes a user id (no such user could exist).
  if (userIds.some((id) => !isUserId(id))) throw fail('invalid_query', `userIds: a user id must have 1 to ${USER_ID_MAX} characters`);
  return userIds;
}

export function checkUserId(id: string): void {
  if (!isUserId(id)) throw fail('invalid_path', `a user id must have 1 to ${USER_ID_MAX} characters`);
}

export function isUserId(id: string): boolean {
  return id.length > 0 && (id.length <= USER_ID_MAX || codePoints(id) <= USER_ID_MAX);
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** The fields an event's user carries but the id, as JSON for the event's log entry ('' for the usual `{ id }` alone). */
export function identificationJson(user: UpsertedUser): string {
  let fields: Record<string, unknown> | null = null;
  for (const key of IDENTIFICATION_FIELDS) {
    const value = user[key];
    if (value == null) continue;
    (fields ??= {})[key] = value;
  }
  return fields === null ? '' : JSON.stringify(fields);
}

/** Throws the spec's 422 when attribute keys are not set up for the given type. */
export function checkAttributeKeys(values: Record<string, string>, known: Map<string, unknown>): void {
  let unknown: string[] | null = null;
  for (const key in values) {
    if (!known.has(key)) (unknown ??= []).push(key);
  }
  if (unknown !== null) throw fail('invalid_attributes', unknown.join(', '));
}

/** An identification checked and turned into what the user scripts take. */
export interface PreparedIdentification {
  /** Field/value pairs for the user hash. */
  pairs: string[];
  /** '1' when the request sets subscribeToEmails to true and carries no email. */
  needsEmail: '0' | '1';
  /** The time zone the request sets, or null. */
  tz: string | null;
}

const NO_CHANGES: PreparedIdentification = { pairs: [], needsEmail: '0', tz: null };

export function prepareIdentification(user: Identification, snapshot: Snapshot): PreparedIdentification {
  const { email, name, tz, subscribeToEmails, deviceTokens, attributes } = user;
  if (email == null && name == null && tz == null && subscribeToEmails == null && deviceTokens == null && attributes == null) {
    return NO_CHANGES;
  }
  const pairs: string[] = [];
  if (email != null) pairs.push('email', email);
  if (name != null) pairs.push('name', name);
  const zone = tz == null ? null : zoneName(tz);
  if (tz != null) {
    if (zone === null) throw fail('invalid_timezone', tz);
    pairs.push('tz', zone);
  }
  if (subscribeToEmails != null) pairs.push('sub', subscribeToEmails ? '1' : '0');
  if (deviceTokens != null) pairs.push('dt', JSON.stringify(deviceTokens));
  if (attributes != null) {
    checkAttributeKeys(attributes, snapshot.userAttributes);
    for (const key in attributes) pairs.push(attributeField(key), attributes[key]);
  }
  return {
    pairs,
    needsEmail: subscribeToEmails === true && (email == null || email === '') ? '1' : '0',
    tz: zone,
  };
}

export type UserHash = Record<string, string>;

/**
 * Whether the user takes emails: 'sub' absent or '1'. '0' unsubscribed through the API (the email
 * dropped, as Trophy), 'u' unsubscribed by the recipient from an email's link (the email kept, so a
 * later `subscribeToEmails: true` needs none sent).
 */
export function isSubscribed(h: UserHash): boolean {
  return h.sub !== '0' && h.sub !== 'u';
}

/** HGETALL replies of scripts come flat: [field, value, field, value, ...] from `offset`. */
export function hashFromFlat(flat: (string | number)[], offset: number): UserHash {
  const h: UserHash = {};
  for (let i = offset; i + 1 < flat.length; i += 2) h[String(flat[i])] = String(flat[i + 1]);
  return h;
}


/**
 * A user as the API answers it; `control` is the user's group (src/domain/notifications/rules.ts
 * isControl); `excluded: true` only for a user excluded from the rankings (src/engine/fairplay/exclude.ts).
 */
export function userView(h: UserHash, control: boolean): UserView {
  // Without a prototype: an attribute key may be `__proto__`, which `{}` would take for its own.
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const field in h) {
    const key = attributeOfField(field);
    if (key !== null) attributes[key] = h[field];
  }
  const view: UserView = {
    id: h.id,
    email: h.email ?? null,
    name: h.name ?? null,
    tz: h.tz ?? null,
    deviceTokens: h.dt ? (JSON.parse(h.dt) as string[]) : null,
    subscribeToEmails: isSubscribed(h),
    attributes,
    control,
    created: h.created,
    updated: h.updated ?? h.created,
  };
  if (h[EXCLUSION_FIELD] !== undefined) view.excluded = true;
  return view;
}

export { NOTIFICATION_TYPES, type NotificationType };

/** A user's preferences (UserPreferencesResponse): `streak` only when the user set some. */
export function preferencesView(h: UserHash, snapshot: Snapshot): PreferencesView {
  const notifications: Partial<Record<NotificationType, string[]>> = {};
  for (const type of NOTIFICATION_TYPES) {
    const raw = h['n:' + type];
    if (raw !== undefined) notifications[type] = JSON.parse(raw) as string[];
  }
  const streak = streakPreferencesOf(h);
  return streak === null ? { notifications } : { notifications, streak: streakPreferencesView(streak, snapshot) };
}

/**
 * Adds a userAttributes pair: every pair must match, so one key with two values could match nobody
 * and is refused (a repeat of the same pair is no change).
 */
export function setPair(pairs: Map<string, string>, key: string, value: string): void {
  const before = pairs.get(key);
  if (before !== undefined && before !== value) {
    throw fail('invalid_query', `userAttributes gives ${key} twice, as "${before}" and "${value}": every pair must match, so no user could`);
  }
  pairs.set(key, value);
}

/** `userAttributes=key:value,key:value`: known user attribute keys, all required. */
export function parseUserAttributes(raw: string | null, snapshot: Snapshot): Map<string, string> | null {
  if (raw === null || raw === '') return null;
  const pairs = new Map<string, string>();
  for (const part of raw.split(',')) {
    const i = part.indexOf(':');
    if (i <= 0) throw fail('invalid_query', `userAttributes must be key:value pairs separated by commas, got "${part}"`);
    setPair(pairs, part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  const unknown = [...pairs.keys()].filter((k) => !snapshot.userAttributes.has(k));
  if (unknown.length > 0) throw fail('invalid_attributes', unknown.join(', '));
  return pairs;
}
