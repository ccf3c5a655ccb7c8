/**
 * Self-check for the oidc-provider test issuer: real tokens verify with jose against the
 * provider's own JWKS, and close() leaves nothing behind (sanitizers stay on).
 * @module
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { startIssuer } from "./oidc_issuer.ts";

function assertEquals(actual: unknown, expected: unknown, msg?: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(
      `${msg ?? "assertEquals"}: ${JSON.stringify(actual)} !== ${JSON.stringify(expected)}`,
    );
  }
}

Deno.test("oidc issuer: client-credentials JWT verifies with jose remote JWKS", async () => {
  const iss = await startIssuer();
  try {
    assertEquals(iss.audience, "https://bridge.test/api");
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(iss.issuer)) throw new Error(`issuer ${iss.issuer}`);

    const token = await iss.token("forecast:write process:run");
    const header = decodeProtectedHeader(token);
    assertEquals(header.alg, "RS256", "alg");
    assertEquals(header.typ, "at+jwt", "typ");

    const jwks = createRemoteJWKSet(new URL(iss.jwksUrl));
    const { payload } = await jwtVerify(token, jwks, {
      issuer: iss.issuer,
      audience: iss.audience,
      algorithms: ["RS256"],
    });
    assertEquals(payload.scope, "forecast:write process:run", "scope");
    assertEquals(payload.aud, iss.audience, "aud");
    assertEquals(payload.iss, iss.issuer, "iss");

    const narrow = await iss.token("process:run");
    const { payload: p2 } = await jwtVerify(narrow, jwks, {
      issuer: iss.issuer,
      audience: iss.audience,
      algorithms: ["RS256"],
    });
    assertEquals(p2.scope, "process:run", "narrow scope");
    assertEquals(p2.aud, iss.audience, "narrow aud");
  } finally {
    await iss.close();
  }
});

Deno.test("oidc issuer: custom audience, two instances side by side", async () => {
  const a = await startIssuer({ audience: "https://other.test/api" });
  const b = await startIssuer();
  try {
    if (a.issuer === b.issuer) throw new Error("issuers should differ (ports)");
    const token = await a.token("forecast:write");
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(a.jwksUrl)), {
      issuer: a.issuer,
      audience: "https://other.test/api",
      algorithms: ["RS256"],
    });
    assertEquals(payload.scope, "forecast:write", "scope");
    assertEquals(payload.aud, "https://other.test/api", "aud");

    // b's keys must not verify a's token.
    let rejected = false;
    try {
      await jwtVerify(token, createRemoteJWKSet(new URL(b.jwksUrl)), { algorithms: ["RS256"] });
    } catch {
      rejected = true;
    }
    if (!rejected) throw new Error("token verified against the wrong issuer's JWKS");
  } finally {
    await a.close();
    await b.close();
  }
});
