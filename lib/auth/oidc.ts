/**
 * OIDC bearer tokens (docs/access-control.md, "Bearer tokens"): RS256 JWTs verified with jose against the issuer's
 * JWKS, which jose caches and refetches when a token presents an unknown `kid` (with a cooldown).
 *
 * Refused: any `alg` but RS256 (`none`, HS256 — also when signed with the RSA public key —,
 * ES256, PS256), wrong `iss`, wrong `aud`, missing or past `exp` (30 s tolerance), a `typ` other
 * than absent, `JWT` or `at+jwt`. Scopes come from `scope` (space-separated) or `permissions`
 * (array). Verified tokens are cached until their `exp` (bounded), so a hot caller costs one
 * map lookup.
 * @module
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import type { Clock } from "../clock.ts";
import type { OidcSettings, Scope } from "../settings.ts";
import { impliedScopes, type Principal } from "./principal.ts";

/** Result of checking a bearer token. */
export type BearerResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: string };

const ACCEPTED_TYP = new Set([undefined, "JWT", "at+jwt", "application/at+jwt"]);
const CACHE_MAX = 10_000;

/** Verifies bearer tokens for one issuer and audience. */
export class OidcVerifier {
  #settings: OidcSettings;
  #clock: Clock;
  #jwks: ReturnType<typeof createRemoteJWKSet>;
  #cache = new Map<string, { principal: Principal; expMs: number }>();

  /** @param settings issuer, audience, JWKS URL and scope mapping */
  constructor(settings: OidcSettings, clock: Clock) {
    this.#settings = settings;
    this.#clock = clock;
    this.#jwks = createRemoteJWKSet(new URL(settings.jwksUrl), {
      cooldownDuration: settings.jwksCooldownSeconds * 1000,
      cacheMaxAge: 10 * 60_000,
      timeoutDuration: 5_000,
    });
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
   * Verifies a compact JWS.
   * @returns the principal, or `{ok: false, reason}` with a sentence safe to show the caller
   */
  async verify(token: string): Promise<BearerResult> {
    const now = this.#clock.now();
    const known = this.cached(token);
    if (known) return { ok: true, principal: known };
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.#jwks, {
        algorithms: ["RS256"],
        issuer: this.#settings.issuer,
        audience: this.#settings.audience,
        requiredClaims: ["exp"],
        clockTolerance: 30,
        currentDate: new Date(now),
      });
      if (!ACCEPTED_TYP.has(protectedHeader.typ)) {
        return { ok: false, reason: `token type "${protectedHeader.typ}" is not accepted` };
      }
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
      // exp is required; the tolerance window is not granted to cached entries.
      this.#cache.set(token, { principal, expMs: (payload.exp as number) * 1000 });
      return { ok: true, principal };
    } catch (err) {
      return { ok: false, reason: describe(err) };
    }
  }
}

function describe(err: unknown): string {
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
