/**
 * The analytics rollups of a batch of log entries (docs/dashboard.md, "Analytics"): what the log
 * drain (and the backfill of an archive) adds to the counters per tenant and UTC day, and what it
 * saw of each user, summed here without any I/O; src/postgres/analytics/rollups.ts merges it with
 * the users' stored state. A user is active on a day with an event or an API completion of that
 * day; first seen at their first entry of any kind. A voided event leaves its day's event counts.
 * What the batch's identifications (an event's inline one, an explicit one, an API completion's)
 * set of each user's email, name and attributes is kept too: the user directory the Admin API's
 * user list searches (docs/dashboard.md, "Users").
 */
import type { NotificationSettings } from '../model/entities.js';
import type { LogBody } from '../model/log.js';
import { controlPoint, ratioAt } from './notifications/rules.js';

export const DAY_MS = 86_400_000;

/** A UTC day number (days since 1970-01-01) as YYYY-MM-DD. */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** YYYY-MM-DD as a UTC day number. */
export function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/** What a batch showed of one user. */
export interface UserSeen {
  tenant: string;
  userId: string;
  /** Their earliest entry's time in the batch (ms). */
  firstMs: number;
  /** Whether they fall in the control group, by the ratio in force at firstMs. */
  control: boolean;
  /** The days (UTC day numbers) of their events and API completions in the batch, ascending. */
  activeDays: number[];
  /** What the batch's identifications set, in the log's order; undefined: none. */
  ident?: IdentityPatch;
}

/**
 * What identifications set of a user, as the user hash takes them (lua/includes/writeUser.lua):
 * a field given replaces it, attributes are set key by key, and an email is not kept while the
 * user is unsubscribed through the API (`subscribeToEmails: false`).
 */
export interface IdentityPatch {
  email?: string;
  name?: string;
  attributes?: Record<string, string>;
  /** true: `subscribeToEmails: false` (the email dropped, and any later one); false: `true` again. */
  emailsOff?: boolean;
}

/** A user's directory fields. */
export interface Identity {
  email: string | null;
  name: string | null;
  attributes: Record<string, string>;
  emailsOff: boolean;
}

/**
 * A text as Postgres can keep it in a text or a jsonb value: a NUL, or half of a surrogate pair,
 * (which an API caller may send, escaped in JSON) becomes U+FFFD.
 */
export function storable(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A NUL, a high surrogate without its low one, a low one without its high one. */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Adds an identification's fields (an entry's `f`) to `patch`. */
export function patchIdentity(patch: IdentityPatch, f: Record<string, unknown>): IdentityPatch {
  if (typeof f.email === 'string') patch.email = storable(f.email);
  if (typeof f.name === 'string') patch.name = storable(f.name);
  if (typeof f.subscribeToEmails === 'boolean') patch.emailsOff = !f.subscribeToEmails;
  const attributes = f.attributes;
  if (attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes)) {
    for (const [key, value] of Object.entries(attributes as Record<string, unknown>)) {
      if (typeof value === 'string') (patch.attributes ??= Object.create(null) as Record<string, string>)[storable(key)] = storable(value);
    }
  }
  return patch;
}

/** `was` with `patch` applied. */
export function applyIdentity(was: Identity, patch: IdentityPatch): Identity {
  const emailsOff = patch.emailsOff ?? was.emailsOff;
  const email = emailsOff ? null : patch.email ?? was.email;
  return {
    email, name: patch.name ?? was.name, emailsOff,
    attributes: patch.attributes === undefined ? was.attributes : { ...was.attributes, ...patch.attributes },
  };
}

/** Whether two identities differ. */
export function identityChanged(a: Identity, b: Identity): boolean {
  if (a.email !== b.email || a.name !== b.name || a.emailsOff !== b.emailsOff) return true;
  const ka = Object.keys(a.attributes);
  return ka.length !== Object.keys(b.attributes).length || ka.some((k) => a.attributes[k] !== b.attributes[k]);
}

export interface DayCounts {
  tenant: string;
  day: number;
  events: number;
  completions: number;
}

export interface BatchRollup {
  /** By `tenant \0 user`. */
  users: Map<string, UserSeen>;
  /** By `tenant \0 day`. */
  days: Map<string, DayCounts>;
  /** Events by `tenant \0 day \0 metric id`. */
  metrics: Map<string, number>;
  /** Completions by `tenant \0 day \0 achievement id`. */
  achievements: Map<string, number>;
}

export function emptyRollup(): BatchRollup {
  return { users: new Map(), days: new Map(), metrics: new Map(), achievements: new Map() };
}

function add(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

/** Adds one entry (its kind and parsed body) to `r`; entries of one user must come in the log's order. */
export function rollEntry(r: BatchRollup, kind: string, body: LogBody, settings: NotificationSettings | null): void {
  // A league seat is no activity of the user, and always follows an entry of theirs that was: a
  // finalisation's moves log one for each early joiner, which would otherwise each cost a row.
  if (kind === 'league') return;
  const { t: tenant, u: userId, ts } = body;
  if (typeof tenant !== 'string' || typeof userId !== 'string' || typeof ts !== 'number' || !Number.isFinite(ts)) return;
  const key = `${tenant}\0${userId}`;
  let user = r.users.get(key);
  if (user === undefined) {
    const ratio = ratioAt(settings, new Date(ts).toISOString());
    user = { tenant, userId, firstMs: ts, control: ratio > 0 && controlPoint(tenant, userId) < ratio, activeDays: [] };
    r.users.set(key, user);
  } else if (ts < user.firstMs) {
    user.firstMs = ts;
  }
  if ((kind === 'event' || kind === 'user' || kind === 'achievement') && body.f !== undefined && body.f !== null && typeof body.f === 'object') {
    user.ident = patchIdentity(user.ident ?? {}, body.f);
  }
  if (kind === 'voided') {
    rollVoided(r, tenant, body);
    return;
  }
  if (kind !== 'event' && kind !== 'achievement') return;
  const day = Math.floor(ts / DAY_MS);
  const completed = Array.isArray(body.ac) ? body.ac.filter((a): a is string => typeof a === 'string') : [];
  const days = user.activeDays;
  if (!days.includes(day)) {
    days.push(day);
    days.sort((a, b) => a - b);
  }
  const dayKey = `${tenant}\0${day}`;
  let counts = r.days.get(dayKey);
  if (counts === undefined) r.days.set(dayKey, (counts = { tenant, day, events: 0, completions: 0 }));
  if (kind === 'event') {
    counts.events++;
    if (typeof body.m === 'string') add(r.metrics, `${dayKey}\0${body.m}`, 1);
  }
  counts.completions += completed.length;
  for (const a of completed) add(r.achievements, `${dayKey}\0${a}`, 1);
}

/**
 * A `voided` entry (src/engine/fairplay/void.ts): its event leaves the counts of the event's UTC
 * day (its time, `at`) and metric. The user stays active that day, as what they completed stays.
 */
function rollVoided(r: BatchRollup, tenant: string, body: LogBody): void {
  if (typeof body.at !== 'number' || !Number.isFinite(body.at) || typeof body.m !== 'string') return;
  const day = Math.floor(body.at / DAY_MS);
  const dayKey = `${tenant}\0${day}`;
  let counts = r.days.get(dayKey);
  if (counts === undefined) r.days.set(dayKey, (counts = { tenant, day, events: 0, completions: 0 }));
  counts.events--;
  add(r.metrics, `${dayKey}\0${body.m}`, -1);
}

/** The users active on each day of the batch, by `tenant \0 day` (for the distinct counts). */
export function activeByDay(r: BatchRollup): Map<string, { tenant: string; day: number; users: string[] }> {
  const out = new Map<string, { tenant: string; day: number; users: string[] }>();
  for (const u of r.users.values()) {
    for (const day of u.activeDays) {
      const key = `${u.tenant}\0${day}`;
      let at = out.get(key);
      if (at === undefined) out.set(key, (at = { tenant: u.tenant, day, users: [] }));
      at.users.push(u.userId);
    }
  }
  return out;
}
