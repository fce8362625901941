/**
 * `recap` (docs/notifications.md): weekly (Monday 09:00 local) or monthly (the 1st, 09:00 local),
 * as the settings say, for the period just ended, to the users active in it. While a template of
 * the type exists, the log drainer notes each active user's recap of the period of their events in
 * the due index (one per user and period: src/engine/notifications/due-index.ts), a delivery once
 * it may be due; when it is due, the period's figures are read from the user's keys
 * (src/engine/notifications/send.ts).
 */
import { DEFAULT_TIME_ZONE } from '../../domain/notifications/rules.js';
import { recapDue } from '../../domain/notifications/timing.js';
import { localDay } from '../../domain/time.js';
import { COMPLETION_PREFIX, DAY_PREFIX, pointsTotalField, totalField } from '../../model/fields.js';
import type { Delivery } from '../../postgres/notifications/deliveries.js';
import type { Context } from '../context.js';

/** A day field's date, or null ('d:YYYY-MM-DD'). */
const dateOfField = (field: string) => (field.startsWith(DAY_PREFIX) ? field.slice(DAY_PREFIX.length) : null);

/**
 * The period's figures: each metric's total and its change in the period, each points system's
 * total and change, and the achievements completed in it (local days).
 */
export async function recapOf(deps: Pick<Context, 'redis' | 'keys' | 'store'>, d: Delivery, h: Record<string, string>) {
  const snapshot = deps.store.current;
  const aggregation = snapshot.notifications?.recap.aggregation ?? 'weekly';
  const tz = h.tz || (snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE);
  const { start, end } = recapDue(aggregation, tz, d.occasion.slice('recap:'.length));
  const u = deps.keys.forUser(d.tenant, d.userId);
  const inPeriod = (date: string | null) => date !== null && date >= start && date <= end;
  const metrics: Record<string, { name: string; total: number; change: number }> = {};
  for (const m of snapshot.metrics.values()) {
    const days = await deps.redis.hgetall(deps.keys.userMetric(u, m.id));
    let change = 0;
    for (const [field, value] of Object.entries(days)) if (inPeriod(dateOfField(field))) change += Number(value);
    metrics[m.key] = { name: m.name, total: Number(h[totalField(m.id)] ?? 0), change };
  }
  const points: Record<string, { name: string; total: number; change: number }> = {};
  for (const p of snapshot.pointsSystems.values()) {
    const days = await deps.redis.hgetall(deps.keys.userPoints(u, p.id).days);
    // Each day's closing total: the period's change is its last one less the last before it.
    let before = 0;
    let last: number | null = null;
    for (const [field, value] of Object.entries(days).sort()) {
      const date = dateOfField(field);
      if (date === null || date > end) continue;
      if (date < start) before = Number(value);
      else last = Number(value);
    }
    points[p.key] = { name: p.name, total: Number(h[pointsTotalField(p.id)] ?? 0), change: last === null ? 0 : last - before };
  }
  const achievements = [];
  for (const [field, value] of Object.entries(h)) {
    if (!field.startsWith(COMPLETION_PREFIX)) continue;
    const a = snapshot.achievements.get(field.slice(COMPLETION_PREFIX.length));
    if (a !== undefined && inPeriod(localDay(tz, Date.parse(value)))) {
      achievements.push({ id: a.id, key: a.key, name: a.name, description: a.description, badgeUrl: a.badgeUrl, achievedAt: value });
    }
  }
  achievements.sort((x, y) => x.achievedAt.localeCompare(y.achievedAt));
  return { recap: { periodStart: start, periodEnd: end, aggregation, metrics, points }, achievements };
}
