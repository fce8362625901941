/**
 * A map that starts over once it holds `max` entries: the memo of a function whose answers repeat
 * (zones, periods, replies, keys), bounded so that a stream of distinct keys cannot grow it.
 * Forgetting costs only the work of finding an answer again.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    if (this.map.size >= this.max && !this.map.has(key)) this.map.clear();
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

/** `compute` remembered per key, in a BoundedMap of `max` entries. */
export function memoize<K, V>(max: number, compute: (key: K) => V): (key: K) => V {
  const known = new BoundedMap<K, V>(max);
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = compute(key);
      known.set(key, value);
    }
    return value;
  };
}

/** A value per object, made once by `make` and kept as long as the object lives (per configuration version, say). */
export function perObject<O extends object, V>(make: (o: O) => V): (o: O) => V {
  const known = new WeakMap<O, V>();
  return (o) => {
    let value = known.get(o);
    if (value === undefined) {
      value = make(o);
      known.set(o, value);
    }
    return value;
  };
}

/**
 * `compute` remembered for the last key only: for a run of calls that mostly repeat the key before
 * it (the days of a drain pass's events), where a map's look-up would cost more than the answer.
 */
export function lastOf<K, V>(compute: (key: K) => V): (key: K) => V {
  let known = false;
  let lastKey: K;
  let lastValue: V;
  return (key) => {
    if (!known || key !== lastKey) {
      lastValue = compute(key);
      lastKey = key;
      known = true;
    }
    return lastValue;
  };
}
