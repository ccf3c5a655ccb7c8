/**
 * The store's size facts (docs/retention.md, "Status"): delivery days kept, the oldest one,
 * events kept and the last pruning, counted by the pruner after each run that did something (and
 * at most hourly otherwise) and kept in KV (`KEYS.retentionFacts`) so that every replica's status
 * shows them. The status route reads them from a {@link CachedEntry}, never KV per request.
 * @module
 */
import { CachedEntry } from "../config/cached_entry.ts";
import { KEYS } from "../store/keys.ts";

/** What retention knows of the store's size. */
export interface RetentionFacts {
  /** Delivery-day states in the store. */
  days_kept: number;
  /** Oldest delivery day with a state (`YYYY-MM-DD`), `null` when none. */
  oldest_day: string | null;
  /** Events in the store (ids run without gaps from the oldest to the head). */
  events_kept: number;
  oldest_event_id: number | null;
  /** ISO-8601 UTC instant of the count. */
  counted_at: string;
  /** The last run that archived something. */
  last_pruning: {
    at: string;
    days_pruned: number;
    /** The newest day that left the store so far. */
    last_day: string | null;
    events_archived: number;
  } | null;
}

/** The stored facts, `null` before the first count. */
export async function readFacts(kv: Deno.Kv): Promise<RetentionFacts | null> {
  return (await kv.get<RetentionFacts>(KEYS.retentionFacts)).value;
}

/**
 * Adds the storing of `facts` to `op`, an atomic that checks the retention lease (the pruner's
 * release of it), so that a replica that lost the lease writes nothing.
 * @returns `op`
 */
export function setFacts(op: Deno.AtomicOperation, facts: RetentionFacts): Deno.AtomicOperation {
  return op.set(KEYS.retentionFacts, facts);
}

/** The facts cached for the status route. */
export class FactsCache {
  #cache: CachedEntry<RetentionFacts>;

  constructor(kv: Deno.Kv) {
    this.#cache = new CachedEntry<RetentionFacts>(kv, KEYS.retentionFacts, { maxAgeMs: 5_000 });
  }

  /** The facts when the cache is young enough (`null`: none yet), else `undefined`. */
  peek(): Readonly<RetentionFacts> | null | undefined {
    const entry = this.#cache.peek();
    return entry && entry.value;
  }

  /** The facts (`null`: none yet), from memory when young enough, else from KV. */
  async current(): Promise<Readonly<RetentionFacts> | null> {
    const known = this.peek();
    return known !== undefined ? known : (await this.#cache.get()).value;
  }

  /** Re-reads on a KV change; call {@link FactsCache.close}. */
  watch(): void {
    this.#cache.watch();
  }

  /** Stops the watch. */
  async close(): Promise<void> {
    await this.#cache.close();
  }
}
