/**
 * Authentication (docs/access-control.md: "Credentials", "Bearer tokens", "Fail closed"): turns `X-API-Key` or
 * `Authorization: Bearer` into a {@link Principal}, or answers 401 / 429 / 503 itself.
 * @module
 */
import type { Context } from "hono";
import type { KeyRing } from "../../auth/api_keys.ts";
import type { OidcVerifier } from "../../auth/oidc.ts";
import { impliedScopes, isAsciiCredential, type Principal } from "../../auth/principal.ts";
import { addressGroup } from "../../net/addresses.ts";
import { AUTH_VARIABLES } from "../../settings.ts";
import type { AppEnv, Gate } from "../env.ts";
import { problem } from "../errors.ts";
import type { TokenBuckets } from "../rate_limiter.ts";

/** What authentication needs. */
export interface AuthenticateOptions {
  keys: KeyRing;
  /** Absent when `OIDC_ISSUER` is unset: then a bearer header is no credential. */
  oidc?: OidcVerifier;
  /** `ALLOW_UNAUTHENTICATED=true`. */
  allowUnauthenticated: boolean;
  /** Limits failed attempts per client address. */
  failures: TokenBuckets;
}

const WWW_AUTHENTICATE = 'Bearer realm="scheduling-bridge", ApiKey header="X-API-Key"';

const ANONYMOUS: Principal = {
  caller: "anonymous",
  credential_type: "none",
  scopes: new Set(impliedScopes("process")),
};

/** The 503 sentence naming the missing configuration (docs/access-control.md, "Fail closed"). */
export const FAIL_CLOSED_DETAIL = `Authentication is not configured: set at least one of ${
  AUTH_VARIABLES.join(", ")
} (or ALLOW_UNAUTHENTICATED=true for local development only).`;

/**
 * The client address (docs/access-control.md, "Client address"): the socket peer, or behind a
 * trusted proxy the address it names; `unknown` when not served by `Deno.serve`.
 */
export function clientAddress(env: AppEnv["Bindings"] | undefined): string {
  return env?.client ?? env?.remoteAddr?.hostname ?? "unknown";
}

/**
 * Counts one failed authentication against the client's address, an IPv6 one by its /64
 * (docs/access-control.md, "Request path": keys cannot be guessed at full speed); the 429 answer
 * when that address is over its limit, else `undefined`.
 */
export function limitFailure(
  failures: TokenBuckets,
  env: AppEnv["Bindings"] | undefined,
): Response | undefined {
  const taken = failures.take(addressGroup(clientAddress(env)));
  if (taken.ok) return undefined;
  return problem(
    429,
    `Too many failed authentication attempts from this address; retry in ${taken.retryAfterSeconds} s.`,
    { "retry-after": String(taken.retryAfterSeconds) },
  );
}

/**
 * Gate factory. Sets `principal` or answers:
 * 503 fail-closed, 401 missing/invalid/non-ASCII credential (with `WWW-Authenticate`),
 * 429 when the client address has failed too often. Synchronous for an API key and for a bearer
 * token already verified (the {@link OidcVerifier} cache); a first-seen token is verified
 * asynchronously.
 */
export function authenticate(opts: AuthenticateOptions): Gate {
  const configured = opts.keys.size > 0 || opts.oidc !== undefined;
  const settle = (c: Context<AppEnv>, result: Principal | string): Response | undefined => {
    if (typeof result !== "string") {
      c.set("principal", result);
      return undefined;
    }
    if (opts.allowUnauthenticated) {
      c.set("principal", ANONYMOUS);
      return undefined;
    }
    const limited = limitFailure(opts.failures, c.env);
    if (limited) return limited;
    return problem(401, result, { "www-authenticate": WWW_AUTHENTICATE });
  };
  return (c) => {
    if (!configured && !opts.allowUnauthenticated) return problem(503, FAIL_CLOSED_DETAIL);
    const result = identify(c.req.raw.headers, opts);
    return result instanceof Promise ? result.then((r) => settle(c, r)) : settle(c, result);
  };
}

/** The principal, or a sentence saying why there is none (a promise only for a new token). */
function identify(
  headers: Headers,
  opts: AuthenticateOptions,
): Principal | string | Promise<Principal | string> {
  const key = headers.get("x-api-key");
  if (key !== null) {
    if (key.trim() === "") return "The X-API-Key header is empty.";
    if (!isAsciiCredential(key)) {
      return "The X-API-Key header is not one key of printable ASCII characters.";
    }
    return opts.keys.match(key) ?? "The API key is not valid.";
  }
  const authorization = headers.get("authorization");
  if (authorization !== null && opts.oidc && /^bearer /i.test(authorization)) {
    const token = authorization.slice(7).trim();
    // A cached token was verified (and so was ASCII) before; its expiry is checked on lookup.
    const known = opts.oidc.cached(token);
    if (known) return known;
    if (!isAsciiCredential(token)) {
      return "The bearer token is not one token of printable ASCII characters.";
    }
    return opts.oidc.verify(token).then((r) =>
      r.ok ? r.principal : `The bearer token is not valid: ${r.reason}.`
    );
  }
  return opts.oidc
    ? "No credential: send X-API-Key or Authorization: Bearer <token>."
    : "No credential: send X-API-Key.";
}
