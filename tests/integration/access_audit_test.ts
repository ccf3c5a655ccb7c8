/**
 * The audit trail against a real server (docs/access-control.md, "Audit events" and "Secrets"):
 * which requests leave an event, and that no stored event holds a configured secret.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, keysEnv, PROC, PROC_2 } from "../support/keys.ts";

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
  const secrets = [PROC, PROC_2, EXT, SFTP_PW, MP_KEY, RUNTIME_PW];
  try {
    for (const k of [PROC, PROC_2, EXT, `${PROC}x`, "wrong-key-0000000000"]) {
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
