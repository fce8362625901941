/**
 * Sending what is due: claims the deliveries due on the service's clock
 * (src/postgres/notifications/deliveries.ts), checks each user again ("Who",
 * src/domain/notifications/rules.ts eligibility), renders the template and sends it, then settles
 * the delivery: `sent`, `suppressed` with the reason, tried again with a backoff after a transport
 * error, or `failed`.
 */
import type pg from 'pg';
import { eligibility } from '../../domain/notifications/rules.js';
import { userView } from '../../domain/users.js';
import type { Snapshot } from '../../model/snapshot.js';
import { pointsTotalField, totalField } from '../../model/fields.js';
import { claimDue, hasLater, releaseClaimed, schedule, settle, type Delivery, type Settlement } from '../../postgres/notifications/deliveries.js';
import { DEFAULT_TIME_ZONE } from '../../domain/notifications/rules.js';
import { REACTIVATION_DAYS } from '../../domain/notifications/timing.js';
import { absenceOf, nextReactivation } from './reactivation.js';
import { activeSince } from './due-index.js';
import { recapOf } from './recap.js';
import { currentStreak } from './reminders.js';
import type { Context } from '../context.js';
import { composeEmail, isTransient, type Email, type Mailer } from './email.js';
import type { Pusher } from './push/index.js';
import { pushMessage, sendPush } from './push-send.js';
import { emailLinks, signingSecret } from './links.js';
import { reminderStreak } from './reminders.js';
import { recordEmailDue } from './email-due.js';

/** Deliveries a pass claims at a time. */
const CLAIM = 20;
/** How long a claim holds (wall time), renewed just before the send. */
export const LEASE_MS = 5 * 60_000;
/** Attempts before a delivery that keeps failing on the transport is `failed`. */
export const MAX_ATTEMPTS = 5;
/** The wait before the next attempt: 1 minute, doubled each attempt (service clock). */
export const backoffMs = (attempts: number): number => 60_000 * 2 ** (attempts - 1);

export interface SendResult {
  claimed: number;
  sent: number;
  suppressed: number;
  retried: number;
  failed: number;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings' | 'log' | 'metrics'>;

/**
 * Sends every delivery due now, a batch at a time. Once `stopping` says so (a worker process
 * stopping), the delivery being sent is finished and settled, the rest of the batch given back.
 */
export async function sendDue(deps: Deps, pool: pg.Pool, transports: Transports, stopping: () => boolean = () => false): Promise<SendResult> {
  const result: SendResult = { claimed: 0, sent: 0, suppressed: 0, retried: 0, failed: 0 };
  const prefix = deps.settings.prefix;
  while (!stopping()) {
    const claimed = await claimDue(pool, prefix, deps.clock.now(), CLAIM, LEASE_MS);
    result.claimed += claimed.length;
    for (const [i, d] of claimed.entries()) {
      if (stopping()) {
        await releaseClaimed(pool, prefix, claimed.slice(i));
        return result;
      }
      const s = await attempt(deps, pool, d, transports);
      if (s === null || !(await settle(pool, prefix, d, s))) continue;
      const outcome = s.status === 'scheduled' ? 'retried' : s.status === 'cancelled' ? 'suppressed' : s.status;
      result[outcome]++;
      deps.metrics.notifications[outcome]++;
    }
    if (claimed.length < CLAIM) return result;
  }
  return result;
}

/** The transports of one worker process: SMTP and the push providers (null: off). */
export interface Transports {
  mailer: Mailer | null;
  pusher: Pusher | null;
}

/** What became of one claimed delivery; null when its claim was lost before the send (nothing sent). */
async function attempt(deps: Deps, pool: pg.Pool, d: Delivery, transports: Transports): Promise<Settlement | null> {
  const retry = (error: string): Settlement => (d.attempts < MAX_ATTEMPTS
    ? { status: 'scheduled', retryAt: deps.clock.now() + backoffMs(d.attempts), error }
    : { status: 'failed', reason: 'transport', error });
  let send: () => Promise<Settlement>;
  try {
    const snapshot = deps.store.current;
    const h = await deps.redis.hgetall(deps.keys.forUser(d.tenant, d.userId).user);
    if (h.id === undefined) return { status: 'suppressed', reason: 'user_not_found' };
    // What the message says: a reminder whose streak was extended (or lost) since is cancelled.
    let content: Record<string, unknown>;
    if (d.type === 'streak_reminder') {
      const streak = reminderStreak(snapshot, h, d.occasion, deps.clock.now());
      if (typeof streak === 'string') return { status: 'cancelled', reason: streak };
      content = { streak };
    } else if (d.type === 'reactivation') {
      // The user came back since (a later active day noted, or a later absence on record): nothing to say.
      const { n, lastDay } = absenceOf(d);
      if (await activeSince(deps, d.tenant, d.userId, lastDay) || await hasLater(pool, deps.settings.prefix, d)) {
        return { status: 'cancelled', reason: 'active' };
      }
      // The absence's next message, whatever becomes of this one (an occasion is scheduled once).
      const next = nextReactivation(d, h.tz || (snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE));
      if (next !== null) await withClient(pool, (client) => schedule(client, deps.settings.prefix, next, deps.clock.now()));
      content = { reactivation: { messageNumber: n, daysSinceLastActive: REACTIVATION_DAYS[n - 1] }, streak: null };
    } else if (d.type === 'recap') {
      content = { ...await recapOf(deps, d, h), streak: currentStreak(snapshot, h, deps.clock.now()) };
    } else {
      const achievements = achievementsOf(snapshot, d);
      if (achievements.length === 0) return { status: 'suppressed', reason: 'nothing_to_send' };
      content = { achievement: achievements[0], achievements };
    }
    // The email is due: `emails.*_due` webhooks, whatever the template and the transport.
    if (d.channel === 'email') await recordEmailDue(deps, pool, d, h, content);
    const template = eligibility(snapshot, d.tenant, h, d.type, d.channel);
    if (typeof template === 'string') return { status: 'suppressed', reason: template };
    if (d.channel === 'push') {
      const { pusher } = transports;
      if (pusher === null || !pusher.enabled) return { status: 'suppressed', reason: 'no_transport' };
      let message;
      try {
        message = pushMessage(template, { ...baseScope(snapshot, h), ...content }, d);
      } catch (err) {
        return { status: 'failed', reason: 'template', error: (err as Error).message };
      }
      send = () => sendPush(deps, pusher, d, h, message, retry);
    } else {
      const { mailer } = transports;
      if (mailer === null) return { status: 'suppressed', reason: 'no_transport' };
      const settings = snapshot.notifications;
      const from = settings?.email.from ?? deps.settings.emailFrom;
      if (!from) return { status: 'suppressed', reason: 'no_sender' };
      const publicUrl = settings?.publicUrl;
      if (!publicUrl) return { status: 'suppressed', reason: 'no_public_url' };
      const links = emailLinks(publicUrl, await signingSecret(deps), d.tenant, d.userId);
      const scope = { ...baseScope(snapshot, h), ...links, ...content };
      let email: Email;
      try {
        email = composeEmail(template, scope, h.email, from, settings?.email.replyTo ?? null, links, d.id);
      } catch (err) {
        return { status: 'failed', reason: 'template', error: (err as Error).message };
      }
      send = async () => {
        try {
          await mailer.send(email);
        } catch (err) {
          deps.log.warn({ err, delivery: d.id }, 'email not sent');
          return isTransient(err) ? retry((err as Error).message) : { status: 'failed', reason: 'refused', error: (err as Error).message };
        }
        return { status: 'sent', at: deps.clock.now() };
      };
    }
  } catch (err) {
    // Redis or Postgres away before anything was sent: tried again.
    return retry((err as Error).message);
  }
  if (!(await renew(pool, deps.settings.prefix, d))) return null;
  return send();
}

/** Holds the claim for a whole lease from now; false when it is no longer this one's. */
async function renew(pool: pg.Pool, prefix: string, d: Delivery): Promise<boolean> {
  const r = await pool.query(
    `UPDATE laurel_deliveries SET claimed_until = now() + $4 * interval '1 millisecond'
     WHERE prefix = $1 AND id = $2 AND status = 'sending' AND attempts = $3`,
    [prefix, d.id, d.attempts, LEASE_MS],
  );
  return (r.rowCount ?? 0) > 0;
}

/** The achievements a delivery lists, in the order they were completed (those deleted since left out). */
function achievementsOf(snapshot: Snapshot, d: Delivery) {
  return Object.entries(d.items).sort((a, b) => a[1] - b[1]).flatMap(([id, ms]) => {
    const a = snapshot.achievements.get(id);
    return a === undefined ? [] : [{
      id: a.id, key: a.key, name: a.name, description: a.description, badgeUrl: a.badgeUrl, achievedAt: new Date(ms).toISOString(),
    }];
  });
}

/** What every template may read: the user, and the user's metric and points totals by key. */
function baseScope(snapshot: Snapshot, h: Record<string, string>) {
  const u = userView(h, false);
  const metrics: Record<string, { name: string; total: number }> = {};
  for (const m of snapshot.metrics.values()) metrics[m.key] = { name: m.name, total: Number(h[totalField(m.id)] ?? 0) };
  const points: Record<string, { name: string; total: number }> = {};
  for (const p of snapshot.pointsSystems.values()) points[p.key] = { name: p.name, total: Number(h[pointsTotalField(p.id)] ?? 0) };
  return { user: { id: u.id, name: u.name, email: u.email, tz: u.tz, attributes: { ...u.attributes } }, metrics, points };
}

/** Runs `fn` with a client of the pool. */
async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}
