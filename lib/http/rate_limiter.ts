/**
 * Token buckets per key (docs/access-control.md, "Request path"). In process memory: with several
 * replicas the effective limit is per replica.
 * @module
 */
import type { Clock } from "../clock.ts";

/** Outcome of taking one token. */
export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** A token bucket per key: capacity `burst`, refilled at `perMinute / 60` tokens per second. */
export class TokenBuckets {
  #perMs: number;
  #burst: number;
  #clock: Clock;
  #buckets = new Map<string, Bucket>();

  /**
   * @param perMinute sustained rate per key; 0 disables the limit
   * @param burst bucket capacity (requests that may come at once)
   */
  constructor(perMinute: number, burst: number, clock: Clock) {
    this.#perMs = perMinute / 60_000;
    this.#burst = burst;
    this.#clock = clock;
  }

  /** False when built with `perMinute` 0: {@link TokenBuckets.take} then always succeeds. */
  get enabled(): boolean {
    return this.#perMs !== 0;
  }

  /** Takes a token for `key`; when none is left says how many whole seconds to wait (≥ 1). */
  take(key: string): TakeResult {
    if (this.#perMs === 0) return { ok: true };
    const now = this.#clock.now();
    let b = this.#buckets.get(key);
    if (!b) {
      if (this.#buckets.size > 50_000) this.#sweep(now);
      b = { tokens: this.#burst, at: now };
      this.#buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.#burst, b.tokens + (now - b.at) * this.#perMs);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return {
      ok: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.#perMs / 1000)),
    };
  }

  /** Forgets buckets that have refilled completely (they equal a fresh bucket). */
  #sweep(now: number): void {
    for (const [k, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * this.#perMs >= this.#burst) this.#buckets.delete(k);
    }
  }
}
