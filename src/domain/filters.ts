import { attributeField } from '../model/fields.js';
import type { AttributeFilter } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';
/**
 * Attribute filters as the scripts and the api read them: user filters as flat [field, value, ...]
 * of the user hash, event filters as [key, value] pairs of the event's attributes. Null when a
 * filter names an attribute that no longer exists (the achievement or trigger then never fires);
 * and the check the Admin API makes of a filter it is sent.
 */

/** The user-hash form of a user-attribute filter; null when an attribute no longer exists. */
export function userFilterOf(filters: AttributeFilter[], snapshot: Snapshot): string[] | null {
  const flat: string[] = [];
  for (const f of filters) {
    const attribute = snapshot.attributes.get(f.attributeId);
    if (!attribute) return null;
    flat.push(attributeField(attribute.key), f.attributeValue);
  }
  return flat;
}

export function eventFilterOf(filters: AttributeFilter[], snapshot: Snapshot): [string, string][] | null {
  const pairs: [string, string][] = [];
  for (const f of filters) {
    const attribute = snapshot.attributes.get(f.attributeId);
    if (!attribute) return null;
    pairs.push([attribute.key, f.attributeValue]);
  }
  return pairs;
}

/** The refusal of filters of `field` that name no attribute of their type (user or event); null when all do. */
export function checkFilters(filters: AttributeFilter[], type: 'user' | 'event', field: string, snapshot: Snapshot): string | null {
  for (const f of filters) {
    if (snapshot.attributes.get(f.attributeId)?.type !== type) return `${field}: "${f.attributeId}" is not the id of ${type === 'user' ? 'a user' : 'an event'} attribute`;
  }
  return null;
}
