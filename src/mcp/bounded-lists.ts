/** Maps iterate in insertion order: the oldest entries go first until at most `max` remain. */
export function capMap(map: Map<unknown, unknown>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}

/**
 * Lists of values held per key until something claims them, with both dimensions capped: a receiver that
 * reports for ever under new keys, or a thousand times under one, cannot grow it. Past the cap the oldest key
 * goes, and within a key the oldest value.
 */
export class BoundedLists<V> {
  private readonly lists = new Map<string, V[]>();

  constructor(
    private readonly maxKeys: number,
    private readonly maxPerKey: number,
  ) {}

  add(key: string, value: V): void {
    let list = this.lists.get(key);
    if (!list) {
      this.lists.set(key, (list = []));
      capMap(this.lists, this.maxKeys);
    }
    list.push(value);
    if (list.length > this.maxPerKey) list.shift();
  }

  /** What was held for `key`, oldest first; the key is forgotten. */
  take(key: string): V[] {
    const list = this.lists.get(key) ?? [];
    this.lists.delete(key);
    return list;
  }
}
