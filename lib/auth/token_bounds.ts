/**
 * Checks on a bearer token beyond its signature, issuer and audience (RFC 8725 §3.10 "Do Not
 * Trust Received Claims", §3.11 "Use Explicit Typing"; RFC 9068 §4), each returning the reason
 * sentence of a refusal or `undefined`:
 *
 * - {@link nonCanonicalSegment}: before verification, every segment of the compact JWS must be
 *   canonical base64url (RFC 7515 §2: no padding, whitespace, other characters or non-zero unused
 *   bits), so one token has exactly one spelling.
 * - {@link claimBoundsProblem}: on the verified payload, `exp`/`nbf`/`iat` are whole seconds in
 *   0 … {@link MAX_NUMERIC_DATE}, `iat` is at most {@link CLOCK_LEEWAY_SECONDS} ahead, and the
 *   lifetime is bounded.
 * - {@link typProblem}: the `typ` header, optionally only `at+jwt`.
 * @module
 */
import { Buffer } from "node:buffer";
import { CLOCK_LEEWAY_SECONDS } from "../clock.ts";

/**
 * Largest NumericDate a token's `exp`, `nbf` or `iat` may carry, seconds since the epoch:
 * 9999-12-31T23:59:59Z. Also the upper bound of `OIDC_MAX_TOKEN_LIFETIME_SECONDS`.
 */
export const MAX_NUMERIC_DATE = 253402300799;

const SEGMENTS = ["header", "payload", "signature"] as const;
const ACCEPTED_TYP = new Set([undefined, "JWT", "at+jwt", "application/at+jwt"]);
const AT_JWT_TYP = new Set(["at+jwt", "application/at+jwt"]);

/**
 * The first segment of a three-segment compact JWS that is not canonical base64url, as a reason
 * (`token segment 3 (signature) is not canonical base64url`); `undefined` when all three are (or
 * when the token does not have three segments: the verifier refuses that form itself).
 * A segment is canonical when re-encoding its decoded bytes gives it back unchanged.
 */
export function nonCanonicalSegment(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== SEGMENTS.length) return undefined;
  for (let i = 0; i < parts.length; i++) {
    if (Buffer.from(parts[i], "base64url").toString("base64url") !== parts[i]) {
      return `token segment ${i + 1} (${SEGMENTS[i]}) is not canonical base64url`;
    }
  }
  return undefined;
}

/** The time claims {@link claimBoundsProblem} reads, in seconds since the epoch. */
export interface TimeClaims {
  /** Expiry (required by the verifier before this check). */
  exp?: unknown;
  /** Not before. */
  nbf?: unknown;
  /** Issued at. */
  iat?: unknown;
}

/**
 * Bounds on the time claims of a verified payload (RFC 8725 §3.10), in this order:
 * 1. `exp`, `nbf` and `iat`, when present, are whole numbers of seconds from 0 to
 *    {@link MAX_NUMERIC_DATE} (JSON `1e400` parses to Infinity and would never expire);
 * 2. `iat` is at most {@link CLOCK_LEEWAY_SECONDS} ahead of now;
 * 3. the lifetime, `exp − iat` (or `exp − now` without `iat`), is at most
 *    `maxLifetimeSeconds`.
 *
 * @param claims the verified payload (`exp` present)
 * @param nowMs current instant, ms since the epoch (compared in whole seconds, like jose)
 * @param maxLifetimeSeconds `OIDC_MAX_TOKEN_LIFETIME_SECONDS`
 * @returns the reason of a refusal, or `undefined`
 */
export function claimBoundsProblem(
  claims: TimeClaims,
  nowMs: number,
  maxLifetimeSeconds: number,
): string | undefined {
  for (const claim of ["exp", "nbf", "iat"] as const) {
    const v = claims[claim];
    if (
      v !== undefined && !(Number.isInteger(v) && Number(v) >= 0 && Number(v) <= MAX_NUMERIC_DATE)
    ) {
      return `token claim "${claim}" is not a whole number of seconds from 0 to ${MAX_NUMERIC_DATE}`;
    }
  }
  const now = Math.floor(nowMs / 1000);
  const exp = claims.exp as number;
  const iat = claims.iat as number | undefined;
  if (iat !== undefined && iat - now > CLOCK_LEEWAY_SECONDS) {
    return `token claim "iat" is ${
      iat - now
    } s in the future, more than the ${CLOCK_LEEWAY_SECONDS} s leeway`;
  }
  const lifetime = exp - (iat ?? now);
  if (lifetime > maxLifetimeSeconds) {
    return `token lifetime of ${lifetime} s exceeds the maximum of ${maxLifetimeSeconds} s (OIDC_MAX_TOKEN_LIFETIME_SECONDS)`;
  }
  return undefined;
}

/**
 * The `typ` header check (RFC 8725 §3.11): absent, `JWT`, `at+jwt` or `application/at+jwt`;
 * with `requireAtJwt` (`OIDC_REQUIRE_AT_JWT=true`) only the last two (RFC 9068 §4).
 * @returns the reason of a refusal, or `undefined`
 */
export function typProblem(typ: unknown, requireAtJwt: boolean): string | undefined {
  const shown = String(typ).slice(0, 64);
  if (requireAtJwt) {
    if (typeof typ === "string" && AT_JWT_TYP.has(typ)) return undefined;
    const required = 'OIDC_REQUIRE_AT_JWT requires "at+jwt" (RFC 9068 §4)';
    return typ === undefined
      ? `token has no type; ${required}`
      : `token type "${shown}" is not accepted; ${required}`;
  }
  return ACCEPTED_TYP.has(typ as string) ? undefined : `token type "${shown}" is not accepted`;
}
