/**
 * Bearer tokens beyond the matrix (docs/access-control.md, "Bearer tokens"): the `OIDC_SCOPE_*` mapping, the
 * verified-token cache honouring `exp` on the app's clock, a foreign `typ`, and the 401 that
 * tells the client how to authenticate.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer } from "../support/app.ts";
import { startFakeJwks } from "../support/fake_jwks.ts";

const AUD = "https://bridge.test/api";

Deno.test("OIDC_SCOPE_PROCESS / OIDC_SCOPE_EXTERNAL map the token's scopes", async () => {
  const jwks = await startFakeJwks(AUD);
  const s = await startServer({
    OIDC_ISSUER: jwks.issuer,
    OIDC_JWKS_URL: jwks.jwksUrl,
    OIDC_AUDIENCE: AUD,
    OIDC_SCOPE_PROCESS: "bridge.operate",
    OIDC_SCOPE_EXTERNAL: "bridge.deliver",
    RATE_LIMIT_PER_MINUTE: "0",
  });
  try {
    const status = async (claims: Record<string, unknown>) =>
      (await call(`${s.url}/v1/console/status`, {
        headers: { authorization: `Bearer ${await jwks.sign(claims)}` },
      })).status;
    const openapi = async (claims: Record<string, unknown>) =>
      (await call(`${s.url}/v1/openapi.json`, {
        headers: { authorization: `Bearer ${await jwks.sign(claims)}` },
      })).status;
    assert.equal(await status({ scope: "openid bridge.operate" }), 200);
    assert.equal(await status({ permissions: ["bridge.operate"] }), 200);
    assert.equal(await status({ scope: "process:run" }), 403, "the default name no longer maps");
    assert.equal(await status({ scope: "bridge.deliver" }), 403);
    assert.equal(await openapi({ scope: "bridge.deliver" }), 200);
    assert.equal(await openapi({ scope: "forecast:write" }), 403);
    // The document names the mapped scopes.
    const doc = await call(`${s.url}/v1/openapi.json`, {
      headers: { authorization: `Bearer ${await jwks.sign({ scope: "bridge.deliver" })}` },
    });
    const op = (doc.body as { paths: Record<string, Record<string, { security: unknown }>> })
      .paths["/v1/console/status"].get;
    assert.deepEqual(op.security, [{ ApiKey: [] }, { Bearer: ["bridge.operate"] }]);
  } finally {
    await s.close();
    await jwks.close();
  }
});

Deno.test("bearer: a cached token stops working at exp (30 s tolerance); 401 says how to authenticate", async () => {
  const jwks = await startFakeJwks(AUD);
  const clock = new FakeClock(Date.now());
  const s = await startServer({
    OIDC_ISSUER: jwks.issuer,
    OIDC_JWKS_URL: jwks.jwksUrl,
    OIDC_AUDIENCE: AUD,
    RATE_LIMIT_PER_MINUTE: "0",
  }, { clock });
  try {
    const exp = Math.floor(clock.now() / 1000) + 60;
    const headers = { authorization: `Bearer ${await jwks.sign({ scope: "process:run", exp })}` };
    const statusNow = async () => (await call(`${s.url}/v1/console/status`, { headers })).status;
    assert.equal(await statusNow(), 200);
    assert.equal(await statusNow(), 200); // served from the verified-token cache
    clock.set(exp * 1000 + 29_000); // past exp, within the tolerance
    assert.equal(await statusNow(), 200);
    clock.set(exp * 1000 + 31_000);
    const late = await call(`${s.url}/v1/console/status`, { headers });
    assert.equal(late.status, 401);
    assert.match((late.body as { detail: string }).detail, /expired/);
    assert.match(String(late.headers.get("www-authenticate")), /Bearer/);
    assert.match(String(late.headers.get("www-authenticate")), /X-API-Key/);
    // A token of another type (an ID token, say) is refused even when signed correctly.
    const idToken = await jwks.sign({ scope: "process:run" }, { typ: "id+jwt" });
    const wrongTyp = await call(`${s.url}/v1/console/status`, {
      headers: { authorization: `Bearer ${idToken}` },
    });
    assert.equal(wrongTyp.status, 401);
  } finally {
    await s.close();
    await jwks.close();
  }
});
