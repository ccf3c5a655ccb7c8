/**
 * OIDC bearer tokens (docs/access-control.md, "Bearer tokens"): RS256 JWTs verified with jose against the issuer's
 * JWKS, which jose caches and refetches when a token presents an unknown `kid` (with a cooldown).
 *
 * Refused: a segment that is not canonical base64url (checked before verification); any `alg`
 * but RS256 (`none`, HS256 — also when signed with the RSA public key —, ES256, PS256), wrong
 * `iss`, wrong `aud`, missing or past `exp` and future `nbf` (30 s leeway); a `typ` other than
 * absent, `JWT` or `at+jwt` (only `at+jwt` with `OIDC_REQUIRE_AT_JWT`, RFC 9068 §4); `exp`/`nbf`/
 * `iat` that are not whole seconds in 0 … 253402300799, `iat` more than 30 s ahead, and a
 * lifetime over `OIDC_MAX_TOKEN_LIFETIME_SECONDS` (RFC 8725 §3.10, §3.11; see
 * `token_bounds.ts`). Scopes come from `scope` (space-separated) or `permissions`
 * (array). Only accepted tokens are cached, until their `exp` (bounded), so a hot caller costs
 * one map lookup.
 *
 * jose is imported at the first token to verify, not when the service starts (a service without
 * OIDC never loads it); the issuer's JWKS URL is parsed when the verifier is made, as before.
 * @module
 */
import type { createRemoteJWKSet, errors as JoseErrors } from "jose";
import { type Clock, CLOCK_LEEWAY_SECONDS } from "../clock.ts";
import type { OidcSettings, Scope } from "./types.ts";
import { impliedScopes, type Principal } from "./principal.ts";
import { claimBoundsProblem, nonCanonicalSegment, typProblem } from "./token_bounds.ts";

/** Result of checking a bearer token. */
export type BearerResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: string };

const CACHE_MAX = 10_000;

let jose: Promise<typeof import("jose")> | undefined;

/** npm:jose, imported once, at the first token verified in this process. */
function loadJose(): Promise<typeof import("jose")> {
  return jose ??= import("jose");
}

/** Verifies bearer tokens for one issuer and audience. */
export class OidcVerifier {
  #settings: OidcSettings;
  #clock: Clock;
  #jwksUrl: URL;
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  #cache = new Map<string, { principal: Principal; expMs: number }>();

  /**
   * @param settings issuer, audience, JWKS URL, scope mapping, the longest accepted lifetime
   *   (seconds) and whether only `typ: at+jwt` is accepted
   * @param clock the time tokens are checked against
   */
  constructor(settings: OidcSettings, clock: Clock) {
    this.#settings = settings;
    this.#clock = clock;
    this.#jwksUrl = new URL(settings.jwksUrl);
  }

  /**
   * The principal of a token verified before whose `exp` is still ahead, else `undefined`
   * (then call {@link OidcVerifier.verify}). Synchronous: the hot path of a returning caller.
   */
  cached(token: string): Principal | undefined {
    const hit = this.#cache.get(token);
    if (!hit) return undefined;
    if (hit.expMs > this.#clock.now()) return hit.principal;
    this.#cache.delete(token);
    return undefined;
  }

  /**
   * Verifies a compact JWS: canonical base64url segments, then signature and claims with jose,
   * then `typ` and the time-claim bounds on the verified payload. Caches only accepted tokens.
   * @returns the principal, or `{ok: false, reason}` with a sentence safe to show the caller
   */
  async verify(token: string): Promise<BearerResult> {
    const now = this.#clock.now();
    const known = this.cached(token);
    if (known) return { ok: true, principal: known };
    const encoding = nonCanonicalSegment(token);
    if (encoding) return { ok: false, reason: encoding };
    const { createRemoteJWKSet, errors, jwtVerify } = await loadJose();
    this.#jwks ??= createRemoteJWKSet(this.#jwksUrl, {
      cooldownDuration: this.#settings.jwksCooldownSeconds * 1000,
      cacheMaxAge: 10 * 60_000,
      timeoutDuration: 5_000,
    });
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.#jwks, {
        algorithms: ["RS256"],
        issuer: this.#settings.issuer,
        audience: this.#settings.audience,
        requiredClaims: ["exp"],
        clockTolerance: CLOCK_LEEWAY_SECONDS,
        currentDate: new Date(now),
      });
      const refused = typProblem(protectedHeader.typ, this.#settings.requireAtJwt) ??
        claimBoundsProblem(payload, now, this.#settings.maxTokenLifetimeSeconds);
      if (refused) return { ok: false, reason: refused };
      const granted = new Set<string>();
      if (typeof payload.scope === "string") {
        for (const s of payload.scope.split(" ")) if (s) granted.add(s);
      }
      if (Array.isArray(payload.permissions)) {
        for (const s of payload.permissions) if (typeof s === "string") granted.add(s);
      }
      const scopes = new Set<Scope>();
      if (granted.has(this.#settings.scopeProcess)) {
        impliedScopes("process").forEach((s) => scopes.add(s));
      }
      if (granted.has(this.#settings.scopeExternal)) scopes.add("external");
      const caller = String(
        payload.client_id ?? payload.azp ?? payload.sub ?? "bearer",
      ).slice(0, 128);
      const principal: Principal = { caller, credential_type: "bearer", scopes };
      if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
      // exp is required and bounded; the tolerance window is not granted to cached entries.
      this.#cache.set(token, { principal, expMs: (payload.exp as number) * 1000 });
      return { ok: true, principal };
    } catch (err) {
      return { ok: false, reason: describe(err, errors) };
    }
  }
}

function describe(err: unknown, joseErrors: typeof JoseErrors): string {
  if (err instanceof joseErrors.JWTExpired) return "token has expired";
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    return `token claim "${err.claim}" is not accepted`;
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return "token algorithm is not accepted";
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "token signing key is not known";
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return "token signature is invalid";
  }
  if (err instanceof joseErrors.JWKSTimeout || err instanceof joseErrors.JWKSInvalid) {
    return "the issuer's signing keys could not be fetched";
  }
  return "token is malformed";
}
