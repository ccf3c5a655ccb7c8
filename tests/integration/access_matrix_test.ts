/**
 * The access matrix (docs/access-control.md): every route × every kind of credential → expected status.
 *
 * Good bearer tokens come from a real OpenID provider (`npm:oidc-provider`, client-credentials
 * grant, JWT access tokens); hand-made bad ones (alg none, HS256 with the public key, ES256,
 * PS256, wrong iss/aud, expired, `permissions` claim, unknown kid then rotation) from a JWKS
 * endpoint the test controls. One app is configured per issuer.
 */
import assert from "node:assert/strict";
import { rawRequest, startServer, type TestServer } from "../support/app.ts";
import { type FakeJwks, startFakeJwks } from "../support/fake_jwks.ts";
import { startIssuer, type TestIssuer } from "../support/oidc_issuer.ts";
import { tempDir } from "../support/temp.ts";
import { EXT, PROC } from "../support/keys.ts";

const AUD = "https://bridge.test/api";

interface Route {
  method: string;
  path: string;
  /** Expected status for a principal with process / external scope. */
  process: number;
  external: number;
  open?: boolean;
  /** The live stream: only a stream token in the query counts, so every header gives 401. */
  stream?: boolean;
}

/** Exact statuses for the routes of the foundation and the console. */
const ROUTES: Route[] = [
  { method: "GET", path: "/health", process: 200, external: 200, open: true },
  { method: "GET", path: "/v1/console/status", process: 200, external: 403 },
  { method: "POST", path: "/v1/console/stream-token", process: 200, external: 403 },
  { method: "POST", path: "/v1/console/start", process: 200, external: 403 },
  { method: "POST", path: "/v1/console/stop", process: 200, external: 403 },
  { method: "GET", path: "/v1/console/events", process: 200, external: 403 },
  { method: "GET", path: "/v1/console/events/stream", process: 401, external: 401, stream: true },
  { method: "GET", path: "/v1/console/config", process: 200, external: 403 },
  { method: "GET", path: "/v1/console/delivery-days", process: 200, external: 403 },
  { method: "GET", path: "/v1/openapi.json", process: 200, external: 200 },
];

/** Sample values for the path parameters of declared routes. */
const PATH_PARAMS: Record<string, string> = {
  day: "2026-11-23",
  malo_id: "51238696781",
  file: "styles.css",
  control_area: "10YDE-RWENET---I",
  month: "2026-11",
  point_id: "52.52,13.42",
};

/** What a credential should yield on a scoped route. */
type Outcome = "process" | "external" | "none" | 401;

interface Credential {
  name: string;
  /** Which app to send it to. */
  app: "op" | "fake";
  headers: () => Promise<Record<string, string>>;
  outcome: Outcome;
  /** Raw header line sent over TCP when fetch cannot carry it. */
  rawHeader?: string;
}

function expected(route: Route, outcome: Outcome): number {
  if (route.open) return 200;
  if (route.stream || outcome === 401) return 401;
  if (outcome === "process") return route.process;
  if (outcome === "external") return route.external;
  return 403;
}

Deno.test("access matrix: every route × every credential", async (t) => {
  const op: TestIssuer = await startIssuer({ audience: AUD });
  const jwks: FakeJwks = await startFakeJwks(AUD);
  await using outboxTmp = await tempDir("bridge-matrix-outbox-");
  const outbox = outboxTmp.path;
  const common = {
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    OIDC_AUDIENCE: AUD,
    RATE_LIMIT_PER_MINUTE: "0",
    OUTBOX_DIR: outbox,
  };
  const opApp: TestServer = await startServer({
    ...common,
    OIDC_ISSUER: op.issuer,
    OIDC_JWKS_URL: op.jwksUrl,
  });
  const fakeApp: TestServer = await startServer({
    ...common,
    OIDC_ISSUER: jwks.issuer,
    OIDC_JWKS_URL: jwks.jwksUrl,
    OIDC_JWKS_COOLDOWN_SECONDS: "0",
  });
  const bearer = (tok: Promise<string> | string) => async () => ({
    authorization: `Bearer ${await tok}`,
  });
  const past = Math.floor(Date.now() / 1000) - 3600;
  try {
    const credentials: Credential[] = [
      { name: "none", app: "op", headers: () => Promise.resolve({}), outcome: 401 },
      {
        name: "external key",
        app: "op",
        headers: () => Promise.resolve({ "x-api-key": EXT }),
        outcome: "external",
      },
      {
        name: "process key",
        app: "op",
        headers: () => Promise.resolve({ "x-api-key": PROC }),
        outcome: "process",
      },
      {
        name: "wrong key",
        app: "op",
        headers: () => Promise.resolve({ "x-api-key": "wrong-secret-000000000" }),
        outcome: 401,
      },
      {
        name: "non-ASCII key",
        app: "op",
        headers: () => Promise.resolve({}),
        rawHeader: "X-API-Key: s\xe9cr\xe8t-\xff-0000000000",
        outcome: 401,
      },
      {
        name: "bearer forecast:write (oidc-provider)",
        app: "op",
        headers: bearer(op.token("forecast:write")),
        outcome: "external",
      },
      {
        name: "bearer process:run (oidc-provider)",
        app: "op",
        headers: bearer(op.token("process:run")),
        outcome: "process",
      },
      {
        name: "bearer without a service scope (oidc-provider)",
        app: "op",
        headers: bearer(op.token("")),
        outcome: "none",
      },
      {
        name: "bearer with permissions instead of scope",
        app: "fake",
        headers: bearer(jwks.sign({ permissions: ["process:run"] })),
        outcome: "process",
      },
      {
        name: "bearer typ at+jwt",
        app: "fake",
        headers: bearer(jwks.sign({ scope: "forecast:write" }, { typ: "at+jwt" })),
        outcome: "external",
      },
      {
        name: "bearer expired",
        app: "fake",
        headers: bearer(jwks.sign({ scope: "process:run", exp: past })),
        outcome: 401,
      },
      {
        name: "bearer wrong aud",
        app: "fake",
        headers: bearer(jwks.sign({ scope: "process:run", aud: "https://other.test/api" })),
        outcome: 401,
      },
      {
        name: "bearer wrong iss",
        app: "fake",
        headers: bearer(jwks.sign({ scope: "process:run", iss: "https://evil.test" })),
        outcome: 401,
      },
      {
        name: "bearer alg none",
        app: "fake",
        headers: bearer(jwks.algNone({ scope: "process:run" })),
        outcome: 401,
      },
      {
        name: "bearer HS256 signed with the RSA public key",
        app: "fake",
        headers: bearer(jwks.hs256WithPublicKey({ scope: "process:run" })),
        outcome: 401,
      },
      {
        name: "bearer ES256",
        app: "fake",
        headers: bearer(jwks.otherAlg("ES256", { scope: "process:run" })),
        outcome: 401,
      },
      {
        name: "bearer PS256",
        app: "fake",
        headers: bearer(jwks.otherAlg("PS256", { scope: "process:run" })),
        outcome: 401,
      },
      {
        name: "non-ASCII bearer",
        app: "fake",
        headers: () => Promise.resolve({}),
        rawHeader: "Authorization: Bearer ey\xe4\xf6\xfc.x.y",
        outcome: 401,
      },
    ];
    const send = async (app: TestServer, cred: Credential, method: string, path: string) => {
      if (cred.rawHeader) {
        const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          `${cred.rawHeader}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;
        return await rawRequest(app.url, Uint8Array.from(head, (c) => c.charCodeAt(0)));
      }
      const res = await fetch(`${app.url}${path}`, { method, headers: await cred.headers() });
      await res.body?.cancel();
      return res.status;
    };

    // Every route the app declares (the same list the OpenAPI document is made from), so a
    // route added later cannot escape the matrix.
    const declared = opApp.bridge.ctx.routes.specs.map((spec) => ({
      method: spec.method.toUpperCase(),
      path: spec.path.replace(/\{(\w+)\}/g, (_, p: string) => {
        assert.ok(PATH_PARAMS[p], `no sample value for path parameter {${p}}`);
        return PATH_PARAMS[p];
      }),
      access: spec.access,
    }));
    assert.ok(declared.length >= 25, `only ${declared.length} routes declared`);
    for (const r of ROUTES) {
      assert.ok(
        declared.some((d) => d.method === r.method && d.path === r.path),
        `${r.method} ${r.path} is not declared`,
      );
    }
    const REFUSALS = [401, 403, 429, 503];

    for (const cred of credentials) {
      await t.step(cred.name, async () => {
        const app = cred.app === "op" ? opApp : fakeApp;
        for (const route of ROUTES) {
          const status = await send(app, cred, route.method, route.path);
          assert.equal(
            status,
            expected(route, cred.outcome),
            `${cred.name} → ${route.method} ${route.path}`,
          );
        }
        for (const route of declared) {
          const status = await send(app, cred, route.method, route.path);
          const where = `${cred.name} → ${route.method} ${route.path} (${route.access})`;
          assert.ok(status < 500, `${where}: ${status}`);
          const allowed = route.access === "open" ||
            (route.access !== "stream" &&
              (cred.outcome === "process" ||
                (cred.outcome === "external" && route.access === "external")));
          if (allowed) {
            assert.ok(!REFUSALS.includes(status), `${where}: refused with ${status}`);
          } else if (route.access === "stream" || cred.outcome === 401) {
            assert.equal(status, 401, where);
          } else {
            assert.equal(status, 403, where);
          }
        }
      });
    }

    await t.step("unknown kid → JWKS rotated → accepted", async () => {
      const signNew = await jwks.unpublishedKey();
      const token = await signNew({ scope: "process:run" });
      const headers = { authorization: `Bearer ${token}` };
      const before = await fetch(`${fakeApp.url}/v1/console/status`, { headers });
      await before.body?.cancel();
      assert.equal(before.status, 401);
      const fetchesBefore = jwks.fetches();
      jwks.publishAll();
      const after = await fetch(`${fakeApp.url}/v1/console/status`, { headers });
      await after.body?.cancel();
      assert.equal(after.status, 200);
      assert.ok(jwks.fetches() > fetchesBefore, "JWKS was refetched for the unknown kid");
    });

    await t.step("bearer callers are recorded with credential type bearer", async () => {
      const tok = await op.token("process:run");
      const res = await fetch(`${opApp.url}/v1/console/start`, {
        method: "POST",
        headers: { authorization: `Bearer ${tok}` },
      });
      await res.body?.cancel();
      assert.equal(res.status, 200);
      const calls = [];
      for await (const e of opApp.kv.list<Record<string, unknown>>({ prefix: ["events"] })) {
        if (e.value.kind === "api_call" && e.value.credential_type === "bearer") calls.push(e);
      }
      assert.ok(calls.length >= 1);
    });
  } finally {
    await opApp.close();
    await fakeApp.close();
    await jwks.close();
    await op.close();
  }
});
