/**
 * A JWKS endpoint the test controls, on 127.0.0.1 port 0, for hand-made (good and bad) tokens:
 * rotation to a new `kid`, `alg: none`, HS256 signed with the RSA public key, ES256, PS256.
 * @module
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

/** Claims a test token carries (defaults fill `iss`, `aud`, `exp`). */
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

const b64 = (o: unknown) =>
  btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-")
    .replace(/\//g, "_");

/** Starts the JWKS server with one RSA key published. */
export async function startFakeJwks(audience = "https://bridge.test/api"): Promise<FakeJwks> {
  const keys: RsaKey[] = [await rsaKey("k1")];
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
    exp: Math.floor(Date.now() / 1000) + 600,
    iat: Math.floor(Date.now() / 1000),
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
    async unpublishedKey() {
      const k = await rsaKey(`k${keys.length + 1}`);
      keys.push(k);
      return (c) => signWith(k, c);
    },
    publishAll() {
      published = keys.map((k) => k.publicJwk);
    },
    algNone: (c) => `${b64({ alg: "none", typ: "JWT" })}.${b64(full(c))}.`,
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
