/**
 * Wrapped's `percentileThisPeriod` and `byAttribute` for a week, a month or the year: the user's
 * place on the run of a board that is exactly that period (src/domain/wrapped-boards.ts), read as
 * every board read reads it (src/engine/leaderboards/read.ts), so nothing is counted that the
 * boards do not already count. Of several such boards the one with the most participants is used.
 */
import { boardsOfPeriod } from '../../domain/wrapped-boards.js';
import type { Range } from '../../domain/wrapped.js';
import type { UserHash } from '../../domain/users.js';
import { attributeField } from '../../model/fields.js';
import { userPlace } from '../leaderboards/read.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** A period's metrics and points as `periodActivity` (src/domain/wrapped.ts) gives them. */
export interface PeriodFigures {
  metrics: Record<string, unknown>;
  points: Record<string, unknown>;
}

interface Found {
  participants: number;
  percentile: number;
  value: number | null;
}

/** Adds the percentiles the boards give to a period's metrics and points (in place). */
export async function addPercentiles(deps: Deps, tenant: string, h: UserHash, period: PeriodFigures, r: Range): Promise<void> {
  const snapshot = deps.store.current;
  const userId = h.id;
  const overall = new Map<string, Found>();
  const byAttribute = new Map<string, Map<string, Found>>();
  await Promise.all(boardsOfPeriod(snapshot.leaderboards.values(), r).map(async (b) => {
    const target = 'metricId' in b.ranks ? `m:${snapshot.metrics.get(b.ranks.metricId)?.key}` : `p:${snapshot.pointsSystems.get(b.ranks.pointsSystemId)?.key}`;
    const attribute = b.attributeId === null ? null : snapshot.attributes.get(b.attributeId)?.key ?? null;
    if (b.attributeId !== null && (attribute === null || target.startsWith('p:'))) return;
    const group = attribute === null ? '' : h[attributeField(attribute)] ?? '';
    if (attribute !== null && group === '') return;
    const place = await userPlace(deps, { tenant, lb: b.lb, run: b.run, group }, userId, false);
    if (place.rank === null || place.percentile === null) return;
    const found = { participants: place.participants, percentile: place.percentile, value: place.value };
    const into = attribute === null ? overall : (byAttribute.get(target) ?? byAttribute.set(target, new Map()).get(target)!);
    const key = attribute === null ? target : `${attribute}\u0000${group}`;
    const before = into.get(key);
    if (before === undefined || found.participants > before.participants) into.set(key, found);
  }));
  for (const [key, entry] of Object.entries(period.metrics) as [string, Record<string, unknown>][]) {
    const found = overall.get(`m:${key}`);
    if (found !== undefined) entry.percentileThisPeriod = found.percentile;
    const groups = byAttribute.get(`m:${key}`);
    if (groups === undefined) continue;
    const into = entry.byAttribute as Record<string, Record<string, unknown>>;
    for (const [name, f] of groups) {
      const [attribute, value] = name.split('\u0000');
      into[attribute] = {
        ...(into[attribute] ?? {}),
        [value]: { name: entry.name, ...(entry.units === undefined ? {} : { units: entry.units }), ...(f.value === null ? {} : { changeThisPeriod: f.value }), percentileThisPeriod: f.percentile },
      };
    }
  }
  for (const [key, entry] of Object.entries(period.points) as [string, Record<string, unknown>][]) {
    const found = overall.get(`p:${key}`);
    if (found !== undefined) entry.percentileThisPeriod = found.percentile;
  }
}
