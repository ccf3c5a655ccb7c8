/**
 * Per-caller rate limit (SPEC §8): 429 with an integer `Retry-After` when the caller's bucket is
 * empty. Runs after authentication.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { problem } from "../errors.ts";
import type { TokenBuckets } from "../rate_limiter.ts";

/** Middleware factory over the per-caller buckets. */
export function rateLimit(buckets: TokenBuckets): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const p = c.get("principal");
    if (!p) return next();
    const r = buckets.take(`${p.credential_type}:${p.caller}`);
    if (!r.ok) {
      return problem(
        429,
        `Rate limit exceeded for caller "${p.caller}"; retry in ${r.retryAfterSeconds} s.`,
        { "retry-after": String(r.retryAfterSeconds) },
      );
    }
    await next();
  };
}
