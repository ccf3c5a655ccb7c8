/**
 * Typed arrays lent out for one forecast and taken back at its end (docs/forecasting.md,
 * "Speed"): a refresh of 10,000 locations makes some 30,000 fits, and each forecast's grid,
 * features and profiles — about 1 MB of `Float64Array`s — would otherwise be allocated afresh
 * and left to the garbage collector, whose backing stores live outside the JavaScript heap and
 * made the process's resident memory grow past a gigabyte. A forecast is synchronous, so one
 * arena per thread serves every forecast of it; nothing handed out may be kept after
 * {@link Arena.release} (the forecast's results are plain arrays).
 * @module
 */

/** Arrays by length, free and lent. */
export class Arena {
  readonly #free = new Map<number, Float64Array[]>();
  readonly #lent: Float64Array[] = [];

  /** A `Float64Array` of `n` values, every one `fill`. */
  f64(n: number, fill: number): Float64Array {
    const a = this.#free.get(n)?.pop() ?? new Float64Array(n);
    a.fill(fill);
    this.#lent.push(a);
    return a;
  }

  /** Takes back everything lent since the last release. */
  release(): void {
    for (const a of this.#lent) {
      const list = this.#free.get(a.length);
      if (list) list.push(a);
      else this.#free.set(a.length, [a]);
    }
    this.#lent.length = 0;
    // Lengths seen once (a refresh of another horizon) are not kept forever.
    if (this.#free.size > 64) this.#free.clear();
  }
}
