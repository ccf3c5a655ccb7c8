/**
 * Access control against a real server (docs/access-control.md): rotation, fail-closed, rate limit,
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

Deno.test("failed authentication: limited per address; other addresses and valid keys unaffected", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_MINUTE: "60" }));
  try {
    // bridge.fetch with Deno.serve's handler info, as from two different client addresses.
    const from = async (hostname: string, key: string) => {
      const res = await s.bridge.fetch(
        new Request("http://bridge.test/v1/console/status", { headers: { "x-api-key": key } }),
        {
          remoteAddr: { transport: "tcp", hostname, port: 40000 },
          completed: Promise.resolve(),
        } as Deno.ServeHandlerInfo<Deno.NetAddr>,
      );
      await res.body?.cancel();
      return res.status;
    };
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await from("192.0.2.1", `guess-${i}-xxxxxxxxxxxxx`));
    assert.deepEqual(guesses, [401, 401, 429]);
    assert.equal(await from("192.0.2.2", "guess-9-xxxxxxxxxxxxx"), 401);
    // The limit is on failures: a valid key from the blocked address still gets in.
    assert.equal(await from("192.0.2.1", PROC), 200);
  } finally {
    await s.close();
  }
});

/** Sends a chunked request (no Content-Length) over TCP; returns the status line's code. */
async function chunked(url: string, path: string, key: string, body: Uint8Array) {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  try {
    const enc = new TextEncoder();
    await conn.write(enc.encode(
      `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    ));
    const reply = (async () => {
      let text = "";
      const dec = new TextDecoder();
      const buf = new Uint8Array(4096);
      // Until the whole response is in (headers + Content-Length bytes) or the peer closes.
      for (;;) {
        const end = text.indexOf("\r\n\r\n");
        const length = /\r\ncontent-length: (\d+)/i.exec(text);
        if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) break;
        const n = await conn.read(buf).catch(() => null);
        if (n === null) break;
        text += dec.decode(buf.subarray(0, n), { stream: true });
      }
      return text;
    })();
    try {
      for (let i = 0; i < body.length; i += 1024) {
        const part = body.subarray(i, i + 1024);
        await conn.write(enc.encode(`${part.length.toString(16)}\r\n`));
        await conn.write(part);
        await conn.write(enc.encode("\r\n"));
      }
      await conn.write(enc.encode("0\r\n\r\n"));
    } catch { /* the server may answer and close before the whole body is sent */ }
    const text = await reply;
    return {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
      body: text.slice(text.indexOf("\r\n\r\n") + 4),
    };
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("body limit: a chunked body without length is counted and cut at the limit", async () => {
  const s = await startServer(keysEnv({ MAX_REQUEST_BYTES: "2048" }));
  try {
    const small = new TextEncoder().encode(JSON.stringify({ sftp_host: "small.example" }));
    const ok = await chunked(s.url, "/v1/console/config", PROC, small);
    assert.equal(ok.status, 200, ok.body);
    const big = new TextEncoder().encode(
      JSON.stringify({ sftp_host: "big.example", pad: "x".repeat(4000) }),
    );
    const refused = await chunked(s.url, "/v1/console/config", PROC, big);
    assert.equal(refused.status, 413);
    assert.match(refused.body, /exceeds the limit of 2048 bytes/);
    const cfg = await call(`${s.url}/v1/console/config`, { headers: { "x-api-key": PROC } });
    const host = (cfg.body as { fields: { sftp_host: { value: string } } }).fields.sftp_host;
    assert.equal(host.value, "small.example");
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
  const SFTP_PW = "sftp-env-password-Q1w2";
  const MP_KEY = "mp-env-key-Zx9-000000";
  const RUNTIME_PW = "sftp-runtime-pw-Lm7-0001";
  const s = await startServer(keysEnv({
    SFTP_PASSWORD: SFTP_PW,
    MARKET_PLATFORM_API_KEY: MP_KEY,
    RATE_LIMIT_PER_MINUTE: "0",
  }));
  const secrets = [PROC, PROC_NEW, EXT, SFTP_PW, MP_KEY, RUNTIME_PW];
  try {
    for (const k of [PROC, PROC_NEW, EXT, `${PROC}x`, "wrong-key-0000000000"]) {
      await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": k } });
      await call(`${s.url}/v1/console/stream-token`, {
        method: "POST",
        headers: { "x-api-key": k },
      });
    }
    const put = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: { "x-api-key": PROC, "content-type": "application/json" },
      body: JSON.stringify({ sftp_password: RUNTIME_PW }),
    });
    assert.equal(put.status, 200);
    // A careless caller pastes secrets into the URL: the refusal is logged with its path.
    for (const secret of secrets) {
      await call(`${s.url}/v1/market-locations/${secret}`, { method: "DELETE" });
      await call(`${s.url}/v1/console/stop/${secret}`, {
        method: "POST",
        headers: { "x-api-key": EXT },
      });
    }
    const stored = await storedEvents(s.kv);
    const raw = JSON.stringify(stored);
    assert.ok(raw.includes("access_denied") && raw.includes("config_changed"));
    assert.ok(
      stored.some((e) => e.path === "/v1/market-locations/********"),
      "the refused path is recorded, masked",
    );
    for (const secret of secrets) assert.ok(!raw.includes(secret), `secret ${secret} leaked`);
    // The raw KV values of the log, byte for byte.
    const bytes: string[] = [];
    for await (const e of s.kv.list({ prefix: ["events"] })) bytes.push(JSON.stringify(e.value));
    for (const secret of secrets) assert.ok(!bytes.join("\n").includes(secret));
  } finally {
    await s.close();
  }
});

Deno.test("status shows posture and never a secret", async () => {
  const s = await startServer(keysEnv({
    OIDC_ISSUER: "https://id.example/",
    OIDC_AUDIENCE: "https://bridge.test/api",
    RATE_LIMIT_PER_MINUTE: "90",
    RATE_LIMIT_BURST: "30",
    MAX_REQUEST_BYTES: "65536",
    SFTP_PASSWORD: "sftp-env-password-Q1w2",
  }));
  try {
    const r = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(r.status, 200);
    const body = r.body as Record<string, Record<string, unknown>>;
    assert.equal(body.version, "0.4.0");
    assert.deepEqual(body.orchestrator, { state: "stopped", changed_at: null, changed_by: null });
    assert.deepEqual(body.security, {
      credential_types: ["api_key", "bearer"],
      api_key_callers: { external: 1, process: 1 },
      api_keys: { external: 1, process: 2 },
      oidc: {
        issuer: "https://id.example/",
        audience: "https://bridge.test/api",
        jwks_url: "https://id.example/.well-known/jwks.json",
        scope_external: "forecast:write",
        scope_process: "process:run",
      },
      unauthenticated_mode: false,
      fail_closed: false,
      rate_limit: { per_minute: 90, burst: 30 },
      max_request_bytes: 65536,
    });
    const text = JSON.stringify(body);
    for (const secret of [PROC, PROC_NEW, EXT, "sftp-env-password-Q1w2"]) {
      assert.ok(!text.includes(secret));
    }
  } finally {
    await s.close();
  }
  const closed = await startServer({ ALLOW_UNAUTHENTICATED: "true" });
  try {
    const r = await call(`${closed.url}/v1/console/status`);
    const sec = (r.body as { security: Record<string, unknown> }).security;
    assert.deepEqual(sec.credential_types, []);
    assert.equal(sec.unauthenticated_mode, true);
    assert.equal(sec.oidc, null);
  } finally {
    await closed.close();
  }
});

Deno.test("OpenAPI document: 3.1.0, version 0.4.0, every route with its scope and schemas", async () => {
  const s = await startServer(keysEnv());
  try {
    const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
    assert.equal(r.status, 200);
    type Op = {
      "x-required-scope": string;
      security: Record<string, string[]>[];
      requestBody?: { content: Record<string, { schema: unknown }> };
      parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
      responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
    };
    const doc = r.body as {
      openapi: string;
      info: { version: string };
      components: { securitySchemes: Record<string, Record<string, string>> };
      paths: Record<string, Record<string, Op>>;
    };
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "0.4.0");
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      "ApiKey",
      "Bearer",
      "StreamToken",
    ]);
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
    // Every declared route is in the document, with its scope as a security requirement.
    const specs = s.bridge.ctx.routes.specs;
    for (const spec of specs) {
      const op = doc.paths[spec.path]?.[spec.method];
      const where = `${spec.method.toUpperCase()} ${spec.path}`;
      assert.ok(op, `${where} missing`);
      assert.equal(op["x-required-scope"], spec.access, where);
      const want = spec.access === "open"
        ? []
        : spec.access === "stream"
        ? [{ StreamToken: [] }]
        : [{ ApiKey: [] }, {
          Bearer: [spec.access === "process" ? "process:run" : "forecast:write"],
        }];
      assert.deepEqual(op.security, want, where);
      if (spec.access !== "open") {
        for (const status of ["401", "429", "503"]) assert.ok(op.responses[status], where);
      }
      if (spec.access === "process" || spec.access === "external") {
        assert.ok(op.responses["403"], where);
      }
    }
    // The routes of the foundation and the console: request and response schemas.
    const ours = Object.entries(doc.paths).filter(([p]) =>
      p === "/health" || p === "/v1/openapi.json" || p.startsWith("/v1/console/")
    );
    assert.equal(ours.length, 10);
    for (const [path, ops] of ours) {
      for (const [method, op] of Object.entries(ops)) {
        const ok = op.responses["200"];
        const media = Object.values(ok?.content ?? {});
        assert.ok(media.length === 1 && media[0].schema, `${method} ${path}: 200 schema`);
      }
    }
    const put = doc.paths["/v1/console/config"].put;
    const bodySchema = put.requestBody!.content["application/json"].schema as {
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    assert.ok("sftp_password" in bodySchema.properties);
    assert.ok(!("process_api_keys" in bodySchema.properties));
    assert.equal(bodySchema.additionalProperties, false);
    assert.ok(put.responses["422"]);
    const params = doc.paths["/v1/console/events"].get.parameters!;
    assert.deepEqual(params.map((p) => [p.in, p.name, p.schema.type]), [
      ["query", "limit", "integer"],
      ["query", "after_id", "integer"],
    ]);
    assert.deepEqual([params[0].schema.minimum, params[0].schema.maximum], [1, 1000]);
    // Bodies that are not JSON: the CSV upload and the CSV data delivery.
    const ingest = doc.paths["/v1/forecasts"].post.requestBody!.content;
    assert.deepEqual(Object.keys(ingest).sort(), ["application/json", "text/csv"]);
    assert.match(JSON.stringify(ingest["text/csv"].schema), /market_location_id,start,kw/);
    const delivery = doc.paths["/v1/delivery-days/{day}/open-position"].get.responses["200"];
    assert.deepEqual(Object.keys(delivery.content ?? {}).sort(), ["application/json", "text/csv"]);
    const stream = doc.paths["/v1/console/events/stream"].get;
    assert.ok(stream.responses["200"].content?.["text/event-stream"]);
  } finally {
    await s.close();
  }
});
