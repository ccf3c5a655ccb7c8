/**
 * Who is calling (DESIGN §3): the result of authentication, read by the rate limiter, the scope
 * guard and the audit trail.
 * @module
 */
import type { Scope } from "../settings.ts";

/** How the caller authenticated. `none` only with `ALLOW_UNAUTHENTICATED=true`. */
export type CredentialType = "api_key" | "bearer" | "none";

/** An authenticated caller. */
export interface Principal {
  /** API-key name, the token's `client_id`/`azp`/`sub`, or `anonymous`. */
  caller: string;
  credential_type: CredentialType;
  /** Granted scopes; `process` always comes with `external` (SPEC §5.2). */
  scopes: ReadonlySet<Scope>;
}

/** Scopes granted by holding `scope`: `process` ⊇ `external` (SPEC §5.2). */
export function impliedScopes(scope: Scope): Scope[] {
  return scope === "process" ? ["process", "external"] : ["external"];
}

/** True when the header value is printable ASCII only; anything else is refused with 401. */
export function isAsciiCredential(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}
