/**
 * Per-caller rate limit (docs/access-control.md, "Request path"): 429 with an integer `Retry-After` when the caller's bucket is
 * empty. Runs after authentication. With `RATE_LIMIT_PER_MINUTE=0` the app leaves this gate out.
 * @module
 */
import type { Gate } from "../env.ts";
import { problem } from "../errors.ts";
import type { TokenBuckets } from "../rate_limiter.ts";

/** Gate factory over the per-caller buckets (keyed by credential type and caller). */
export function rateLimit(buckets: TokenBuckets): Gate {
  return (c) => {
    const p = c.get("principal");
    if (!p) return undefined;
    const r = buckets.take(`${p.credential_type}:${p.caller}`);
    if (r.ok) return undefined;
    return problem(
      429,
      `Rate limit exceeded for caller "${p.caller}"; retry in ${r.retryAfterSeconds} s.`,
      { "retry-after": String(r.retryAfterSeconds) },
    );
  };
}
