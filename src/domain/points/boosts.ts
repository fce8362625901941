/**
 * The boosts of a points system as the Admin API takes, stores and shows them (trophy-admin
 * 1.21.1 AdminPointsBoost): a multiplier of the awards over the days start..end, for one user or
 * for everyone matching its user-attribute filters.
 */
import { checkFilters } from '../filters.js';
import { boostStatus } from './rules.js';
import { DATE, FILTERS, NAME, type BuildContext } from './systems.js';
import { checkDateSpan } from '../time.js';
import type { AttributeFilter, PointsBoost } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { PointsBoostAdminView } from '../../model/views.js';

const boostFields = {
  name: NAME,
  start: DATE,
  end: { ...DATE, type: ['string', 'null'] },
  multiplier: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 100 },
  rounding: { enum: ['down', 'up', 'nearest'] },
  userAttributes: FILTERS,
};

export const boostSchemas = {
  create: {
    type: 'object', required: ['name', 'start', 'multiplier'],
    properties: { ...boostFields, userId: { type: ['string', 'null'], minLength: 1, maxLength: 255 } },
  },
  update: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, ...boostFields } },
};

export interface BoostInput {
  name: string;
  start: string;
  end?: string | null;
  multiplier: number;
  rounding?: 'down' | 'up' | 'nearest';
  userId?: string | null;
  userAttributes?: AttributeFilter[] | null;
}

export type BoostChanges = Partial<Omit<BoostInput, 'userId'>> & { id: string };

/** `scheduled` before the start day, `finished` after the end day, else `active` (UTC days). */
function pointsBoostStatus(b: PointsBoost, nowMs: number): 'active' | 'scheduled' | 'finished' {
  return boostStatus(b, new Date(nowMs).toISOString().slice(0, 10));
}

export function pointsBoostAdminView(b: PointsBoost, nowMs: number): PointsBoostAdminView {
  const view: PointsBoostAdminView = {
    id: b.id, name: b.name, status: pointsBoostStatus(b, nowMs), start: b.start, end: b.end,
    multiplier: b.multiplier, rounding: b.rounding, userId: b.userId,
  };
  if (b.userId === null) view.userAttributes = b.userAttributes;
  return view;
}

/** The checks the schemas cannot make; a message, or null when the boost is sound. */
function checkBoost(b: PointsBoost, snapshot: Snapshot): string | null {
  const span = checkDateSpan(b.start, b.end);
  if (span !== null) return span;
  if (b.multiplier === 1) return 'multiplier must not be 1';
  if (b.userId !== null && b.userAttributes.length > 0) return 'userAttributes cannot be set on a boost for one user (userId)';
  return checkFilters(b.userAttributes, 'user', 'userAttributes', snapshot);
}

export function buildBoost(item: BoostInput, { id, now, snapshot, parentId, tenant }: BuildContext): PointsBoost | string {
  const b: PointsBoost = {
    id, systemId: parentId, name: item.name, start: item.start, end: item.end ?? null, multiplier: item.multiplier,
    rounding: item.rounding ?? 'down', userId: item.userId ?? null, userAttributes: item.userAttributes ?? [],
    created: now, updated: now,
  };
  // A boost for one user is for that user of the tenant the request acts for.
  if (b.userId !== null) b.tenant = tenant;
  return checkBoost(b, snapshot) ?? b;
}

export function applyBoost(b: PointsBoost, c: BoostChanges, { now, snapshot }: { now: string; snapshot: Snapshot }): PointsBoost | string {
  const next: PointsBoost = {
    ...b,
    name: c.name ?? b.name,
    start: c.start ?? b.start,
    end: c.end === undefined ? b.end : c.end,
    multiplier: c.multiplier ?? b.multiplier,
    rounding: c.rounding ?? b.rounding,
    userAttributes: c.userAttributes === undefined ? b.userAttributes : c.userAttributes ?? [],
    updated: now,
  };
  return checkBoost(next, snapshot) ?? next;
}
