/**
 * The core types of access control (docs/access-control.md: "Scopes", "Credentials", "Bearer
 * tokens"), in a module of their own so that authentication, the request path and the route
 * table share them without importing the environment loader (`lib/settings.ts`, which builds
 * them from the environment).
 * @module
 */

/** An access scope (docs/access-control.md, "Scopes"). `process` grants everything `external` grants. */
export type Scope = "external" | "process";

/** One configured API key: the caller's name, its scope and the secret (never logged). */
export interface ApiKeyEntry {
  /** Caller name recorded in the event log (`api_call.caller`). */
  name: string;
  /** Scope this key grants. */
  scope: Scope;
  /** The secret the caller sends in `X-API-Key`. */
  secret: string;
  /** Environment variable the entry came from, for messages. */
  source: string;
}

/** OIDC bearer-token settings (docs/access-control.md, "Bearer tokens"); absent when `OIDC_ISSUER` is unset. */
export interface OidcSettings {
  /** Expected `iss` claim, exactly as configured. */
  issuer: string;
  /** Expected `aud` claim (the API identifier). */
  audience: string;
  /** Where the issuer's signing keys are published. Default `<issuer>/.well-known/jwks.json`. */
  jwksUrl: string;
  /** Token scope that grants `external`. Default `forecast:write`. */
  scopeExternal: string;
  /** Token scope that grants `process`. Default `process:run`. */
  scopeProcess: string;
  /** Least time between two JWKS refetches caused by unknown `kid`s, seconds. Default 30. */
  jwksCooldownSeconds: number;
  /**
   * Longest accepted token lifetime, seconds: `exp − iat`, or `exp − now` without `iat`
   * (RFC 8725 §3.10). `OIDC_MAX_TOKEN_LIFETIME_SECONDS`, a positive integer; default 86400.
   */
  maxTokenLifetimeSeconds: number;
  /**
   * Accept only explicitly typed access tokens, `typ` `at+jwt` or `application/at+jwt`
   * (RFC 9068 §4, RFC 8725 §3.11). `OIDC_REQUIRE_AT_JWT`; default `false`.
   */
  requireAtJwt: boolean;
}
