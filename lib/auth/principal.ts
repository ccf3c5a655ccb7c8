/**
 * Who is calling (docs/architecture.md, "Request path"): the result of authentication, read by the rate limiter, the scope
 * guard and the audit trail.
 * @module
 */
import type { Scope } from "./types.ts";

/** How the caller authenticated. `none` only with `ALLOW_UNAUTHENTICATED=true`. */
export type CredentialType = "api_key" | "bearer" | "none";

/** An authenticated caller. */
export interface Principal {
  /** API-key name, the token's `client_id`/`azp`/`sub`, or `anonymous`. */
  caller: string;
  credential_type: CredentialType;
  /** Granted scopes; `process` always comes with `external` (docs/access-control.md, "Scopes"). */
  scopes: ReadonlySet<Scope>;
}

/** Scopes granted by holding `scope`: `process` ⊇ `external` (docs/access-control.md, "Scopes"). */
export function impliedScopes(scope: Scope): Scope[] {
  return scope === "process" ? ["process", "external"] : ["external"];
}

/** True when the header value is printable ASCII only; anything else is refused with 401. */
export function isAsciiCredential(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}
