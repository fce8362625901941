/**
 * Points systems as the Admin API takes, stores and shows them (trophy-admin 1.21.1
 * AdminPointsSystem), and what their triggers, levels and boosts share there: the field schemas,
 * the badge, the context a child is built in, the parent a child's path names. How points are
 * awarded and shown to applications: src/domain/points/rules.ts.
 */
import { offPeriodsAfter, type PointsSystem } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { PointsSystemAdminView } from '../../model/views.js';

export const KEY = { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 100 };
export const NAME = { type: 'string', minLength: 1, maxLength: 255 };
export const DESCRIPTION = { type: ['string', 'null'], maxLength: 2000 };
export const BADGE = { type: ['object', 'null'], required: ['url'], properties: { url: { type: 'string', maxLength: 2048, format: 'http-url' } } };
export const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
/** Integers stay exact in JSON, Lua and Redis. */
export const int = (minimum: number) => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER });
export const FILTERS = {
  type: ['array', 'null'],
  maxItems: 20,
  items: {
    type: 'object',
    required: ['attributeId', 'attributeValue'],
    properties: { attributeId: { type: 'string' }, attributeValue: { type: 'string', maxLength: 1024 } },
  },
};

export type Badge = { url: string } | null;

export const badgeOf = (url: string | null): Badge => (url === null ? null : { url });

/** What a trigger, level or boost is built with: its new id, the time, the configuration, its system. */
export interface BuildContext {
  id: string;
  now: string;
  snapshot: Snapshot;
  parentId: string;
  /** The tenant (storage id) the creating request acts for. */
  tenant: string;
}

/** The system a child's path names (`/points/:systemId/...`), and a child's system. */
export const pointsSystemParent = {
  label: 'Points system',
  exists: (snapshot: Snapshot, id: string) => snapshot.pointsSystems.has(id),
  of: (e: { systemId: string }) => e.systemId,
};

export interface SystemInput {
  name: string;
  key: string;
  description?: string | null;
  badge?: Badge;
  maxPoints?: number | null;
  levels?: unknown[];
  boosts?: unknown[];
  triggers?: unknown[];
}

export interface SystemChanges {
  id: string;
  name?: string;
  description?: string | null;
  badge?: Badge;
  maxPoints?: number | null;
  status?: 'active' | 'archived';
}

/** `description` is '' when none was given: AdminPointsSystem requires a string. */
export function pointsSystemAdminView(p: PointsSystem): PointsSystemAdminView {
  return {
    id: p.id, name: p.name, key: p.key, description: p.description ?? '', status: p.status,
    badge: badgeOf(p.badgeUrl), maxPoints: p.maxPoints,
  };
}

export function buildSystem(item: SystemInput, { id, now }: { id: string; now: string }): PointsSystem {
  return {
    id, key: item.key, name: item.name, description: item.description ?? null, badgeUrl: item.badge?.url ?? null,
    maxPoints: item.maxPoints ?? null, status: 'active', created: now, updated: now,
  };
}

/** An update; archiving opens an off period, restoring closes it. */
export function applySystem(p: PointsSystem, c: SystemChanges, now: string): PointsSystem {
  return {
    ...p,
    name: c.name ?? p.name,
    description: c.description === undefined ? p.description : c.description,
    badgeUrl: c.badge === undefined ? p.badgeUrl : c.badge?.url ?? null,
    maxPoints: c.maxPoints === undefined ? p.maxPoints : c.maxPoints,
    status: c.status ?? p.status,
    offPeriods: offPeriodsAfter(p.offPeriods, p.status === 'archived', (c.status ?? p.status) === 'archived', now),
    updated: now,
  };
}
