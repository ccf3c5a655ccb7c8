/**
 * The stream token end to end (docs/access-control.md, "Stream tokens"): 300 s on a fake clock,
 * tampered, an API key in `token`, used on another route, shared by two app instances with the
 * same process keys (each on its own KV file), fail-closed and unauthenticated mode on the
 * stream, failed tokens limited per client address, and what lands in the audit trail.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { openSse } from "../support/sse.ts";
import { EXT, PROC } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC}`, EXTERNAL_API_KEYS: `acme:${EXT}` };
const STREAM = "/v1/console/events/stream";

async function issue(s: TestServer, key = PROC) {
  return await call(`${s.url}/v1/console/stream-token`, {
    method: "POST",
    headers: { "x-api-key": key },
  });
}

/** Opens the stream with `token`; returns the status (and closes a 200 stream at once). */
async function streamStatus(s: TestServer, token: string): Promise<number> {
  const sse = await openSse(`${s.url}${STREAM}?token=${encodeURIComponent(token)}`);
  await sse.close();
  return sse.status;
}

Deno.test("stream token over HTTP: {token, expires_in: 300}, valid 300 s on the app's clock, then 401", async () => {
  const clock = new FakeClock(Date.parse("2026-11-22T10:00:00Z"));
  const s = await startServer({ ...env, RATE_LIMIT_PER_MINUTE: "0" }, { clock });
  try {
    const r = await issue(s);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("cache-control"), "no-store");
    const body = r.body as { token: string; expires_in: number };
    assert.equal(body.expires_in, 300);
    assert.equal(typeof body.token, "string");
    assert.equal(await streamStatus(s, body.token), 200);
    clock.advance(299_000);
    assert.equal(await streamStatus(s, body.token), 200);
    clock.advance(1_000);
    const expired = await call(`${s.url}${STREAM}?token=${body.token}`);
    assert.equal(expired.status, 401);
    assert.match((expired.body as { detail: string }).detail, /expired/);
    // A fresh token works again.
    const again = (await issue(s)).body as { token: string };
    assert.equal(await streamStatus(s, again.token), 200);
    // The refusal is a security fact; the successful exchanges are not logged (docs/access-control.md, "Audit events").
    const events = await storedEvents(s.kv);
    assert.deepEqual(events.map((e) => [e.kind, e.path, e.status]), [
      ["access_denied", STREAM, 401],
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("stream token: tampered, an API key, empty → 401; the token is no credential elsewhere", async () => {
  const s = await startServer({ ...env, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    const { token } = (await issue(s)).body as { token: string };
    const [exp, mac] = token.split(".");
    const flipped = `${exp}.${mac[0] === "A" ? "B" : "A"}${mac.slice(1)}`;
    const later = `${Number(exp) + 3600}.${mac}`;
    for (const bad of [flipped, later, PROC, EXT, "", `${token}x`]) {
      assert.equal(await streamStatus(s, bad), 401, JSON.stringify(bad));
    }
    // With a valid API key or bearer header but no token, the stream still refuses.
    const withKey = await call(`${s.url}${STREAM}`, { headers: { "x-api-key": PROC } });
    assert.equal(withKey.status, 401);
    // The refusal names the credential this route takes (RFC 9110 §15.5.2: a 401 carries a
    // challenge), not the API key or bearer token the other routes take.
    assert.equal(
      withKey.headers.get("www-authenticate"),
      'StreamToken realm="scheduling-bridge", query="token"',
    );
    const expiredOrBad = await call(`${s.url}${STREAM}?token=${encodeURIComponent(flipped)}`);
    assert.equal(expiredOrBad.status, 401);
    assert.match(String(expiredOrBad.headers.get("www-authenticate")), /^StreamToken /);
    // The stream token opens nothing but the stream.
    for (
      const [path, init] of [
        ["/v1/console/status", { headers: { "x-api-key": token } }],
        ["/v1/console/status", { headers: { authorization: `Bearer ${token}` } }],
        [`/v1/console/status?token=${token}`, {}],
        [`/v1/console/events?token=${token}`, {}],
        ["/v1/console/stream-token", { method: "POST", headers: { "x-api-key": token } }],
      ] as [string, RequestInit][]
    ) {
      const r = await call(`${s.url}${path}`, init);
      assert.equal(r.status, 401, path);
    }
  } finally {
    await s.close();
  }
});

Deno.test("stream token: two app instances with the same process keys accept each other's", async () => {
  // Separate KV files: the key is derived from the process keys, not shared through storage.
  const a = await startServer({ PROCESS_API_KEYS: `ops:${PROC},robot:robot-secret-00000001` });
  const b = await startServer({ PROCESS_API_KEYS: `robot:robot-secret-00000001,ops:${PROC}` });
  const other = await startServer({ PROCESS_API_KEYS: "ops:another-secret-000000001" });
  try {
    const fromA = ((await issue(a)).body as { token: string }).token;
    const fromB = ((await issue(b)).body as { token: string }).token;
    assert.equal(await streamStatus(b, fromA), 200);
    assert.equal(await streamStatus(a, fromB), 200);
    assert.equal(await streamStatus(other, fromA), 401);
  } finally {
    await a.close();
    await b.close();
    await other.close();
  }
});

Deno.test("stream: fail closed (503 naming the variables); open with ALLOW_UNAUTHENTICATED", async () => {
  const closed = await startServer({});
  try {
    const r = await call(`${closed.url}${STREAM}?token=123.abc`);
    assert.equal(r.status, 503);
    assert.match((r.body as { detail: string }).detail, /PROCESS_API_KEYS.*OIDC_ISSUER/);
  } finally {
    await closed.close();
  }
  const open = await startServer({ ALLOW_UNAUTHENTICATED: "true" });
  try {
    const sse = await openSse(`${open.url}${STREAM}?after_id=0`);
    assert.equal(sse.status, 200);
    const got = await sse.read((m) => m.some((x) => x.event === "auth_disabled"), 2000);
    await sse.close();
    assert.ok(got.some((m) => m.event === "auth_disabled"), JSON.stringify(got));
  } finally {
    await open.close();
  }
});

Deno.test("stream: bad tokens are limited per client address (429 with Retry-After)", async () => {
  const s = await startServer({ ...env, RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_MINUTE: "60" }, {
    clock: new FakeClock(), // the bucket refills by this clock, not by how slow the machine is
  });
  try {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      const r = await call(`${s.url}${STREAM}?token=1999999999.${"A".repeat(43)}`);
      statuses.push(r.status);
      retryAfter = r.headers.get("retry-after");
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    assert.match(String(retryAfter), /^[1-9]\d*$/);
    const denied = (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");
    assert.deepEqual(denied.map((e) => e.status), [401, 401, 401, 429]);
  } finally {
    await s.close();
  }
});
