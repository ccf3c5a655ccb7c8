/**
 * Credentials against a real server (docs/access-control.md, "Credentials"): key rotation,
 * fail-closed without any credential configured, the unauthenticated mode, malformed keys and
 * tokens, and a bearer header while no OpenID issuer is configured.
 */
import assert from "node:assert/strict";
import { call, rawRequest, startServer, storedEvents } from "../support/app.ts";
import { EXT, keysEnv, PROC, PROC_2 } from "../support/keys.ts";

Deno.test("rotation: two secrets of one caller both work; removing one makes it 401", async () => {
  const before = await startServer(keysEnv());
  try {
    for (const k of [PROC, PROC_2]) {
      const r = await call(`${before.url}/v1/console/status`, { headers: { "x-api-key": k } });
      assert.equal(r.status, 200);
    }
  } finally {
    await before.close();
  }
  const after = await startServer({ PROCESS_API_KEYS: `ops:${PROC_2}` });
  try {
    const old = await call(`${after.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(old.status, 401);
    const cur = await call(`${after.url}/v1/console/status`, {
      headers: { "x-api-key": PROC_2 },
    });
    assert.equal(cur.status, 200);
  } finally {
    await after.close();
  }
});

Deno.test("fail closed: 503 names the missing variables, /health stays open", async () => {
  const s = await startServer({});
  try {
    const r = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(r.status, 503);
    const detail = (r.body as { detail: string }).detail;
    for (const v of ["PROCESS_API_KEYS", "PROCESS_API_KEY", "EXTERNAL_API_KEYS", "OIDC_ISSUER"]) {
      assert.match(detail, new RegExp(v));
    }
    const token = await call(`${s.url}/v1/console/stream-token`, { method: "POST" });
    assert.equal(token.status, 503);
    const health = await call(`${s.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: "ok", version: "0.4.0" });
    const page = await call(`${s.url}/console`);
    assert.equal(page.status, 200);
    // 503 is no access_denied (nothing was refused for a credential), and reads, /health and
    // /console are never logged.
    assert.deepEqual(await storedEvents(s.kv), []);
  } finally {
    await s.close();
  }
});

Deno.test("ALLOW_UNAUTHENTICATED opens routes and records auth_disabled on every start", async () => {
  const s = await startServer({ ALLOW_UNAUTHENTICATED: "true" });
  const kvPath = s.kvPath;
  const dir = kvPath.slice(0, kvPath.lastIndexOf("/"));
  try {
    const r = await call(`${s.url}/v1/console/status`);
    assert.equal(r.status, 200);
    assert.equal(
      (r.body as { security: { unauthenticated_mode: boolean } }).security
        .unauthenticated_mode,
      true,
    );
  } finally {
    await s.close({ keepDir: true });
  }
  const again = await startServer({ ALLOW_UNAUTHENTICATED: "true" }, { kvPath });
  try {
    const kinds = (await storedEvents(again.kv)).filter((e) => e.kind === "auth_disabled");
    assert.equal(kinds.length, 2);
    assert.equal(kinds[0].level, "warning");
  } finally {
    await again.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("non-ASCII key or bearer token → 401, never 500", async () => {
  const s = await startServer(keysEnv());
  try {
    for (const header of ["X-API-Key: k\xe9y-\xff\xfe-secret", "Authorization: Bearer t\xf6ken"]) {
      const bytes = Uint8Array.from(
        `GET /v1/console/status HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\nConnection: close\r\n\r\n`,
        (ch) => ch.charCodeAt(0),
      );
      assert.equal(await rawRequest(s.url, bytes), 401, header);
    }
    // Two key headers (joined with ", "), an empty one, a key with a space: 401 with a reason.
    for (
      const [headers, detail] of [
        [[["x-api-key", PROC], ["x-api-key", EXT]], /not one key of printable ASCII/],
        [[["x-api-key", ""]], /header is empty/],
        [[["x-api-key", `${PROC} x`]], /not one key of printable ASCII/],
      ] as [[string, string][], RegExp][]
    ) {
      const r = await call(`${s.url}/v1/console/status`, { headers: new Headers(headers) });
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.match((r.body as { detail: string }).detail, detail);
    }
  } finally {
    await s.close();
  }
});

Deno.test("bearer header is no credential when OIDC_ISSUER is unset", async () => {
  const s = await startServer(keysEnv());
  try {
    const r = await call(`${s.url}/v1/console/status`, {
      headers: { authorization: "Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig" },
    });
    assert.equal(r.status, 401);
    assert.equal((r.body as { detail: string }).detail, "No credential: send X-API-Key.");
  } finally {
    await s.close();
  }
});
