/**
 * Access control against a real server (SPEC §5, §6, §7, §8): rotation, fail-closed, rate limit,
 * body limit, non-ASCII credentials, audit events and secrets kept out of the log.
 */
import assert from "node:assert/strict";
import { call, rawRequest, startServer, storedEvents } from "../support/app.ts";

const PROC = "proc-secret-0001-aaaaaaaa";
const PROC_NEW = "proc-secret-0002-bbbbbbbb";
const EXT = "ext-secret-0001-cccccccccc";

const keysEnv = (extra: Record<string, string> = {}) => ({
  PROCESS_API_KEYS: `ops:${PROC},ops:${PROC_NEW}`,
  EXTERNAL_API_KEYS: `acme:${EXT}`,
  ...extra,
});

Deno.test("rotation: two secrets of one caller both work; removing one makes it 401", async () => {
  const before = await startServer(keysEnv());
  try {
    for (const k of [PROC, PROC_NEW]) {
      const r = await call(`${before.url}/v1/console/status`, { headers: { "x-api-key": k } });
      assert.equal(r.status, 200);
    }
  } finally {
    await before.close();
  }
  const after = await startServer({ PROCESS_API_KEYS: `ops:${PROC_NEW}` });
  try {
    const old = await call(`${after.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(old.status, 401);
    const cur = await call(`${after.url}/v1/console/status`, {
      headers: { "x-api-key": PROC_NEW },
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

Deno.test("rate limit: burst + 1 → 429 with Retry-After ≥ 1; another caller unaffected", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "5", RATE_LIMIT_PER_MINUTE: "60" }));
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
      statuses.push(r.status);
      if (i === 5) {
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
        assert.match(String(r.headers.get("retry-after")), /^\d+$/);
        assert.match((r.body as { detail: string }).detail, /Rate limit exceeded/);
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    const other = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(other.status, 200);
    const denied = (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");
    assert.equal(denied.length, 1);
    assert.equal(denied[0].status, 429);
    assert.equal(denied[0].path, "/v1/openapi.json");
  } finally {
    await s.close();
  }
});

Deno.test("rate 0 never limits", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_MINUTE: "0" }));
  try {
    for (let i = 0; i < 20; i++) {
      const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
      assert.equal(r.status, 200);
    }
  } finally {
    await s.close();
  }
});

Deno.test("failed authentication is limited per client address", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_MINUTE: "60" }));
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(`${s.url}/v1/console/status`, {
        headers: { "x-api-key": `guess-${i}-xxxxxxxxxxxx` },
      });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  } finally {
    await s.close();
  }
});

Deno.test("body limit: 100 MB declared, nothing sent → 413 at once", async () => {
  const s = await startServer(keysEnv());
  try {
    const head = new TextEncoder().encode(
      "POST /v1/console/stream-token HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        `X-API-Key: ${PROC}\r\nContent-Type: application/json\r\n` +
        "Content-Length: 100000000\r\n\r\n",
    );
    assert.equal(await rawRequest(s.url, head), 413);
  } finally {
    await s.close();
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

Deno.test("audit: api_call for a successful POST, access_denied for 401/403, none for reads", async () => {
  const s = await startServer(keysEnv());
  try {
    await call(`${s.url}/health`);
    await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    await call(`${s.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": EXT } });
    await call(`${s.url}/v1/console/status`);
    const stop = await call(`${s.url}/v1/console/stop`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.equal(stop.status, 200);
    const events = await storedEvents(s.kv);
    assert.deepEqual(events.map((e) => [e.kind, e.status, e.path]), [
      ["access_denied", 403, "/v1/console/status"],
      ["access_denied", 401, "/v1/console/status"],
      ["orchestrator_stopped", undefined, undefined],
      ["api_call", 200, "/v1/console/stop"],
    ]);
    assert.equal(events[3].caller, "ops");
    assert.equal(events[3].credential_type, "api_key");
    assert.deepEqual(events.map((e) => e.id), [1, 2, 3, 4]);
  } finally {
    await s.close();
  }
});

Deno.test("no stored event contains any configured secret", async () => {
  const s = await startServer(keysEnv());
  try {
    for (const k of [PROC, PROC_NEW, EXT, `${PROC}x`, "wrong-key-0000000000"]) {
      await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": k } });
      await call(`${s.url}/v1/console/stream-token`, {
        method: "POST",
        headers: { "x-api-key": k },
      });
    }
    const raw = JSON.stringify(await storedEvents(s.kv));
    assert.ok(raw.includes("access_denied"));
    for (const secret of [PROC, PROC_NEW, EXT]) assert.ok(!raw.includes(secret), "secret leaked");
  } finally {
    await s.close();
  }
});

Deno.test("status shows posture and never a secret", async () => {
  const s = await startServer(keysEnv());
  try {
    const r = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(r.status, 200);
    const body = r.body as Record<string, Record<string, unknown>>;
    assert.equal(body.version, "0.4.0");
    assert.equal(body.orchestrator.state, "stopped");
    assert.deepEqual(body.security.api_key_callers, { external: 1, process: 1 });
    assert.deepEqual(body.security.credential_types, ["api_key"]);
    const text = JSON.stringify(body);
    for (const secret of [PROC, PROC_NEW, EXT]) assert.ok(!text.includes(secret));
  } finally {
    await s.close();
  }
});

Deno.test("OpenAPI document: 3.1.0, version 0.4.0, scope per route", async () => {
  const s = await startServer(keysEnv());
  try {
    const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
    assert.equal(r.status, 200);
    const doc = r.body as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { "x-required-scope": string; security: unknown[] }>>;
    };
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "0.4.0");
    assert.equal(doc.paths["/v1/console/status"].get["x-required-scope"], "process");
    assert.deepEqual(doc.paths["/v1/console/status"].get.security, [
      { ApiKey: [] },
      { Bearer: ["process:run"] },
    ]);
    assert.equal(doc.paths["/health"].get["x-required-scope"], "open");
  } finally {
    await s.close();
  }
});
