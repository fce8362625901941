/**
 * A map of lists: the list under a key, made empty the first time, to push onto in place (building
 * a new array per value, `[...old, value]`, made a drain pass of thousands of entries quadratic).
 */
export function listIn<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  return list;
}
