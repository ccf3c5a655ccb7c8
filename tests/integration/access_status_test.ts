/**
 * The security posture in `GET /v1/console/status` (docs/architecture.md, "Console API";
 * docs/access-control.md): credential types, key counts, OIDC settings, limits — and never a
 * secret.
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { EXT, keysEnv, PROC, PROC_2 } from "../support/keys.ts";

Deno.test("status shows posture and never a secret", async () => {
  const s = await startServer(keysEnv({
    OIDC_ISSUER: "https://id.example/",
    OIDC_AUDIENCE: "https://bridge.test/api",
    RATE_LIMIT_PER_MINUTE: "90",
    RATE_LIMIT_BURST: "30",
    MAX_REQUEST_BYTES: "65536",
    SFTP_PASSWORD: "sftp-env-password-Q1w2",
    TRUSTED_PROXIES: "10.0.0.0/8, 2001:DB8::/32",
  }));
  try {
    const r = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(r.status, 200);
    const body = r.body as Record<string, Record<string, unknown>>;
    assert.equal(body.version, "0.4.0");
    // The state, and the health of the passes (none yet; none due while stopped).
    assert.deepEqual(body.orchestrator, {
      state: "stopped",
      changed_at: null,
      changed_by: null,
      last_pass: null,
      failed_passes_in_a_row: 0,
      next_pass_at: null,
    });
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
      trusted_proxies: ["10.0.0.0/8", "2001:db8::/32"],
    });
    const text = JSON.stringify(body);
    for (const secret of [PROC, PROC_2, EXT, "sftp-env-password-Q1w2"]) {
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
    assert.deepEqual(sec.trusted_proxies, []);
  } finally {
    await closed.close();
  }
});
