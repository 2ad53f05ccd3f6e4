/** Items numbered in increasing order (a ring of messages): those above `seq`, oldest first, at most `limit`. */
export function numberedAfter<T extends { seq: number }>(
  items: readonly T[],
  seq: number,
  limit = Infinity,
): T[] {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((items[mid]?.seq ?? Infinity) > seq) high = mid;
    else low = mid + 1;
  }
  return items.slice(low, Number.isFinite(limit) ? low + limit : undefined);
}
