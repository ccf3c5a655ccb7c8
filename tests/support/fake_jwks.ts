/**
 * A JWKS endpoint the test controls, on 127.0.0.1 port 0, for hand-made (good and bad) tokens:
 * rotation to a new `kid`, `alg: none`, HS256 signed with the RSA public key, ES256, PS256, and
 * RS256 signatures over any text (raw payloads such as `{"exp":1e400}`, non-canonical segments).
 * @module
 */
import { Buffer } from "node:buffer";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import type { Clock } from "../../lib/clock.ts";

/**
 * Claims a test token carries. Defaults fill `iss`, `aud`, `iat` (now), `exp` (now + 600 s) and
 * `client_id`; a claim given as `undefined` is left out of the token.
 */
export interface TokenClaims {
  iss?: string;
  aud?: string;
  exp?: number;
  scope?: string;
  permissions?: string[];
  client_id?: string;
  [k: string]: unknown;
}

type RsaKey = { kid: string; privateKey: CryptoKey; publicJwk: JWK };

/** The running JWKS server. */
export interface FakeJwks {
  issuer: string;
  jwksUrl: string;
  audience: string;
  /** Number of times the JWKS document was fetched. */
  fetches(): number;
  /** Signs RS256 with the current published key. */
  sign(claims: TokenClaims, opts?: { typ?: string }): Promise<string>;
  /**
   * RS256 over exactly `<header>.<payload>` as given (already base64url, canonical or not) with
   * the current published key; returns the whole token. For hand-made, oddly encoded tokens.
   */
  signSegments(header: string, payload: string): Promise<string>;
  /** `kid` of the current published key (for hand-made headers). */
  kid: string;
  /** Makes a new RSA key (new `kid`) that is not published yet; returns a signer for it. */
  unpublishedKey(): Promise<(claims: TokenClaims) => Promise<string>>;
  /** Publishes every key made so far (a rotation). */
  publishAll(): void;
  /** A token with header `{alg: "none"}` and no signature. */
  algNone(claims: TokenClaims): string;
  /** HS256 signed with the published RSA public key's bytes as HMAC secret (key confusion). */
  hs256WithPublicKey(claims: TokenClaims): Promise<string>;
  /** Signed with another algorithm (ES256 or PS256), its key published under the same `kid` shape. */
  otherAlg(alg: "ES256" | "PS256", claims: TokenClaims): Promise<string>;
  close(): Promise<void>;
}

async function rsaKey(kid: string): Promise<RsaKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return { kid, privateKey, publicJwk };
}

/**
 * The first key (`k1`) of every fake JWKS of this process: made once, as RSA key generation costs
 * 0.1–0.5 s of CPU. Each test starts its own JWKS server (its own issuer URL) and bridge, so a
 * shared first key lets no token of one test through another's bridge; rotated keys
 * ({@link FakeJwks.unpublishedKey}) are always new.
 */
let firstKey: Promise<RsaKey> | undefined;

/** Canonical base64url of a string's UTF-8 bytes, or of an object's JSON text. */
export function b64url(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return Buffer.from(text, "utf8").toString("base64url");
}

/**
 * Starts the JWKS server with one RSA key published.
 * @param opts.clock where the default `iat`/`exp` come from (default: the wall clock)
 */
export async function startFakeJwks(
  audience = "https://bridge.test/api",
  opts: { clock?: Clock } = {},
): Promise<FakeJwks> {
  const nowSeconds = () => Math.floor((opts.clock?.now() ?? Date.now()) / 1000);
  firstKey ??= rsaKey("k1");
  const keys: RsaKey[] = [await firstKey];
  let published: JWK[] = [keys[0].publicJwk];
  const extra: JWK[] = [];
  let fetchCount = 0;
  const ac = new AbortController();
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: ({ port }) => resolve(port) },
    () => {
      fetchCount++;
      return Response.json({ keys: [...published, ...extra] });
    },
  );
  const port = await promise;
  const issuer = `http://127.0.0.1:${port}`;
  const full = (c: TokenClaims) => ({
    iss: issuer,
    aud: audience,
    exp: nowSeconds() + 600,
    iat: nowSeconds(),
    client_id: "test-client",
    ...c,
  });
  const signWith = (k: RsaKey, c: TokenClaims, typ?: string) =>
    new SignJWT(full(c)).setProtectedHeader({ alg: "RS256", kid: k.kid, ...(typ ? { typ } : {}) })
      .sign(k.privateKey);
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    audience,
    fetches: () => fetchCount,
    sign: (c, o) => signWith(keys[0], c, o?.typ),
    kid: keys[0].kid,
    async signSegments(header, payload) {
      const input = new TextEncoder().encode(`${header}.${payload}`);
      const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", keys[0].privateKey, input);
      return `${header}.${payload}.${Buffer.from(sig).toString("base64url")}`;
    },
    async unpublishedKey() {
      const k = await rsaKey(`k${keys.length + 1}`);
      keys.push(k);
      return (c) => signWith(k, c);
    },
    publishAll() {
      published = keys.map((k) => k.publicJwk);
    },
    algNone: (c) => `${b64url({ alg: "none", typ: "JWT" })}.${b64url(full(c))}.`,
    async hs256WithPublicKey(c) {
      const secret = new TextEncoder().encode(JSON.stringify(keys[0].publicJwk));
      return await new SignJWT(full(c)).setProtectedHeader({ alg: "HS256", kid: keys[0].kid })
        .sign(secret);
    },
    async otherAlg(alg, c) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const kid = `other-${alg}`;
      extra.push({ ...(await exportJWK(publicKey)), kid, alg, use: "sig" });
      return await new SignJWT(full(c)).setProtectedHeader({ alg, kid }).sign(privateKey);
    },
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}
