import { attributeField } from '../model/fields.js';
import type { AttributeFilter } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';
/**
 * Attribute filters as the scripts and the api read them: user filters as flat [field, value, ...]
 * of the user hash, event filters as [key, value] pairs of the event's attributes. Null when a
 * filter names an attribute that no longer exists (the achievement or trigger then never fires).
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

