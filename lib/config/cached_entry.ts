/**
 * One KV entry kept in memory for the hot request path (docs/architecture.md, "In-memory caches"): the runtime-config overlay
 * and the orchestrator state are read by every status request, but change a few times a day.
 *
 * Freshness rules:
 * - **Own writes** are applied at once with {@link CachedEntry.written}: the next read in this
 *   process sees them.
 * - **Other writers** are seen within `maxAgeMs` (default 1,000 ms): a cached value older than
 *   that is never served; a read then waits for KV. A value older than half of it is served
 *   while one background read replaces it, so a busy process never waits.
 * - With {@link CachedEntry.watch}, `kv.watch` triggers a re-read as soon as KV reports a
 *   change (instant on Deno Deploy and KV Connect; a local SQLite file does not report other
 *   processes' writes, which the maximum age covers).
 *
 * Reads and own writes are ordered by a generation counter: a read that started before a newer
 * read or an own write finished never replaces their result.
 *
 * Ages are measured on the monotonic `performance.now()`, not on the service {@link Clock}, so a
 * test's fake clock cannot freeze the cache.
 *
 * @example
 * const overlay = new CachedEntry<Record<string, unknown>>(kv, ["config_overlay"]);
 * overlay.watch();
 * const { value } = await overlay.get(); // memory after the first read
 * const res = await kv.set(["config_overlay"], { a: 1 });
 * overlay.written({ a: 1 }, res.versionstamp); // seen by the next get()
 * await overlay.close();
 * @module
 */

/** Options of a {@link CachedEntry}. */
export interface CachedEntryOptions<T> {
  /** Longest time, in ms, a value read from KV is served without reading again (default 1,000). */
  maxAgeMs?: number;
  /** Called with each value read from KV (also background and watch re-reads) before it is served. */
  onRead?: (value: T) => void;
}

/** A KV entry cached in memory; see the module doc for the freshness rules. */
export class CachedEntry<T> {
  #kv: Deno.Kv;
  #key: Deno.KvKey;
  #maxAgeMs: number;
  #onRead?: (value: T) => void;
  #entry: Deno.KvEntryMaybe<T> | undefined;
  /** `performance.now()` when the served value was read (or written by this process). */
  #at = -Infinity;
  #gen = 0;
  #appliedGen = 0;
  #inflight: Promise<Deno.KvEntryMaybe<T>> | undefined;
  #watcher: ReadableStreamDefaultReader<[Deno.KvEntryMaybe<T>]> | undefined;
  #watchDone: Promise<void> | undefined;
  #closed = false;

  /**
   * @param kv the store (the caller owns it and closes it after {@link CachedEntry.close})
   * @param key the one key cached
   */
  constructor(kv: Deno.Kv, key: Deno.KvKey, opts: CachedEntryOptions<T> = {}) {
    this.#kv = kv;
    this.#key = key;
    this.#maxAgeMs = opts.maxAgeMs ?? 1_000;
    this.#onRead = opts.onRead;
  }

  /**
   * The entry, from memory when it is younger than `maxAgeMs`, else from KV (concurrent callers
   * share one read).
   * @throws whatever `kv.get` throws when a read from KV is needed
   */
  get(): Promise<Deno.KvEntryMaybe<T>> {
    const entry = this.peek();
    return entry ? Promise.resolve(entry) : this.#refresh();
  }

  /**
   * The entry when memory holds one younger than `maxAgeMs`, else `undefined` (then call
   * {@link CachedEntry.get}). Past half the age it starts one background re-read.
   */
  peek(): Deno.KvEntryMaybe<T> | undefined {
    if (this.#entry === undefined) return undefined;
    const age = performance.now() - this.#at;
    if (age > this.#maxAgeMs) return undefined;
    if (age > this.#maxAgeMs / 2 && !this.#inflight && !this.#closed) {
      this.#refresh().catch(() => {/* served stale-but-young; the next get() reads again */});
    }
    return this.#entry;
  }

  /**
   * Reads KV now (strongly consistent within this store) and caches the result.
   * @returns the newest entry known: this read, or an own write that finished meanwhile
   * @throws whatever `kv.get` throws
   */
  async read(): Promise<Deno.KvEntryMaybe<T>> {
    const gen = ++this.#gen;
    const entry = await this.#kv.get<T>(this.#key);
    if (gen > this.#appliedGen) this.#apply(entry, gen);
    return this.#entry!;
  }

  /**
   * Records a write this process committed, so that the next read sees it at once.
   * @param value the value written, `null` after a delete
   * @param versionstamp of the commit, `null` after a delete
   */
  written(value: T | null, versionstamp: string | null): void {
    const entry = versionstamp === null || value === null
      ? { key: this.#key, value: null, versionstamp: null }
      : { key: this.#key, value, versionstamp };
    this.#apply(entry, ++this.#gen);
  }

  /**
   * Starts re-reading whenever `kv.watch` reports a change of the key. Idempotent. Call
   * {@link CachedEntry.close} before closing the store.
   */
  watch(): void {
    if (this.#watcher || this.#closed) return;
    const reader = this.#kv.watch<[T]>([this.#key]).getReader();
    this.#watcher = reader;
    this.#watchDone = (async () => {
      try {
        while (!this.#closed) {
          const { done } = await reader.read();
          if (done || this.#closed) break;
          // Re-read rather than take the emitted value: the generation counter then orders it
          // with own writes and other reads (the first emission, the value at start, costs one
          // read).
          await this.read().catch(() => {/* the maximum age covers a failed re-read */});
        }
      } catch {
        // The store was closed or the watch failed: the maximum age still bounds staleness.
      }
    })();
  }

  /** Stops the watch (if any) and waits for it to end. The cache keeps answering from KV. */
  async close(): Promise<void> {
    this.#closed = true;
    const reader = this.#watcher;
    this.#watcher = undefined;
    if (reader) {
      await reader.cancel().catch(() => {});
      await this.#watchDone;
    }
    await this.#inflight?.catch(() => {});
  }

  #refresh(): Promise<Deno.KvEntryMaybe<T>> {
    this.#inflight ??= this.read().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  #apply(entry: Deno.KvEntryMaybe<T>, gen: number): void {
    if (entry.value !== null) this.#onRead?.(entry.value);
    this.#entry = entry;
    this.#appliedGen = gen;
    this.#at = performance.now();
  }
}
