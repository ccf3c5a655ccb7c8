/**
 * Authentication of the live stream (docs/access-control.md, "Stream tokens"): the stream token in the
 * `token` query parameter is the only credential there; an `X-API-Key` or bearer header is
 * ignored. Answers 503 when authentication is not configured (fail closed), 401 for a missing,
 * non-ASCII, tampered or expired token or one expiring later than any this service issues (with
 * `WWW-Authenticate` naming the stream token's challenge, RFC 9110 §11.6.1), and 429 when the
 * client address has failed too often.
 * With `ALLOW_UNAUTHENTICATED=true` the stream is open like every other route.
 * @module
 */
import { STREAM_TOKEN_TTL_SECONDS, type StreamTokens } from "../../auth/stream_token.ts";
import { CLOCK_LEEWAY_SECONDS } from "../../clock.ts";
import { impliedScopes, isAsciiCredential, type Principal } from "../../auth/principal.ts";
import type { Gate } from "../env.ts";
import { problem } from "../errors.ts";
import type { TokenBuckets } from "../rate_limiter.ts";
import { FAIL_CLOSED_DETAIL, limitFailure } from "./authenticate.ts";

/** What the stream guard needs. */
export interface StreamAuthOptions {
  tokens: StreamTokens;
  /** True when at least one API key or an OIDC issuer is configured. */
  configured: boolean;
  /** `ALLOW_UNAUTHENTICATED=true`. */
  allowUnauthenticated: boolean;
  /** Failed attempts per client address (shared with {@link authenticate}). */
  failures: TokenBuckets;
}

/**
 * The challenge of a 401 here (RFC 9110 §15.5.2: a 401 carries one): the stream token, in the
 * `token` query parameter — the only credential this route takes.
 */
export const STREAM_WWW_AUTHENTICATE = 'StreamToken realm="scheduling-bridge", query="token"';

const ANONYMOUS: Principal = {
  caller: "anonymous",
  credential_type: "none",
  scopes: new Set(impliedScopes("process")),
};

/** Gate factory for routes with access `stream`. */
export function streamAuth(opts: StreamAuthOptions): Gate {
  return (c) => {
    if (opts.allowUnauthenticated) {
      c.set("principal", ANONYMOUS);
      return undefined;
    }
    if (!opts.configured) return problem(503, FAIL_CLOSED_DETAIL);
    const token = c.req.query("token") ?? "";
    const verdict = token !== "" && isAsciiCredential(token)
      ? opts.tokens.verify(token)
      : "invalid";
    if (verdict === "ok") return undefined;
    const limited = limitFailure(opts.failures, c.env);
    if (limited) return limited;
    return problem(
      401,
      verdict === "expired"
        ? "The stream token has expired; get a new one from POST /v1/console/stream-token."
        : verdict === "beyond_lifetime"
        ? `The stream token expires later than any token this service issues (${STREAM_TOKEN_TTL_SECONDS} s + ${CLOCK_LEEWAY_SECONDS} s leeway); get a new one from POST /v1/console/stream-token.`
        : token === ""
        ? "A stream token is required in the token query parameter; get one from POST /v1/console/stream-token (API keys and bearer tokens are not accepted here)."
        : "The stream token is not valid (API keys and bearer tokens are not accepted here); get one from POST /v1/console/stream-token.",
      { "www-authenticate": STREAM_WWW_AUTHENTICATE },
    );
  };
}
