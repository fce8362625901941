/**
 * The levels of a points system as the Admin API takes, stores and shows them (trophy-admin 1.21.1
 * AdminPointsLevel): a level is reached at `points`; its key is unique within its system.
 */
import { BADGE, badgeOf, DESCRIPTION, int, KEY, NAME, type Badge, type BuildContext } from './systems.js';
import type { PointsLevel } from '../../model/entities.js';
import type { PointsLevelAdminView } from '../../model/views.js';

const levelFields = { name: NAME, key: KEY, points: int(0), description: DESCRIPTION, badge: BADGE };

export const levelSchemas = {
  create: { type: 'object', required: ['name', 'key', 'points'], properties: levelFields },
  update: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, ...levelFields } },
};

export interface LevelInput {
  name: string;
  key: string;
  points: number;
  description?: string | null;
  badge?: Badge;
}

export type LevelChanges = Partial<LevelInput> & { id: string };

/** `description` is '' when none was given: AdminPointsLevel requires a string. */
export function pointsLevelAdminView(l: PointsLevel): PointsLevelAdminView {
  return { id: l.id, name: l.name, key: l.key, points: l.points, description: l.description ?? '', badge: badgeOf(l.badgeUrl) };
}

export function buildLevel(item: LevelInput, { id, now, parentId }: BuildContext): PointsLevel {
  return {
    id, systemId: parentId, key: item.key, scopedKey: `${parentId}:${item.key}`, name: item.name,
    description: item.description ?? null, badgeUrl: item.badge?.url ?? null, points: item.points,
    created: now, updated: now,
  };
}

export function applyLevel(l: PointsLevel, c: LevelChanges, now: string): PointsLevel {
  const key = c.key ?? l.key;
  return {
    ...l,
    key, scopedKey: `${l.systemId}:${key}`,
    name: c.name ?? l.name,
    points: c.points ?? l.points,
    description: c.description === undefined ? l.description : c.description,
    badgeUrl: c.badge === undefined ? l.badgeUrl : c.badge?.url ?? null,
    updated: now,
  };
}

/** The refusal of levels made together that share a key (the first one that repeats), or null. */
export function checkLevelKeys(levels: PointsLevel[]): string | null {
  const duplicate = levels.findIndex((l, j) => levels.findIndex((o) => o.key === l.key) !== j);
  return duplicate < 0 ? null : `levels[${duplicate}]: A level with key "${levels[duplicate].key}" already exists`;
}
