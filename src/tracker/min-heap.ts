/** A binary min-heap: thousands of waiting items cost log n each to add or take, not a sort per change. */
export class MinHeap<T> {
  private items: T[] = [];

  /** `less(a, b)`: a comes out before b. */
  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): T | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length > 0 && last !== undefined) {
      this.items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.items.length && this.before(l, m)) m = l;
        if (r < this.items.length && this.before(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }

  /** Takes every item out, in no particular order. */
  drain(): T[] {
    return this.items.splice(0);
  }

  /** Keeps only the items `keep` says yes to. */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    this.items = [];
    for (const item of kept) this.push(item);
  }

  private at(i: number): T {
    return this.items[i] as T;
  }

  private before(i: number, j: number): boolean {
    return this.less(this.at(i), this.at(j));
  }

  private swap(i: number, j: number): void {
    const a = this.at(i);
    this.items[i] = this.at(j);
    this.items[j] = a;
  }
}
