import assert from "node:assert/strict";
import { loadSettings, SettingsError } from "../../lib/settings.ts";

const SECRET = "a-very-secret-value-123";

function problemsOf(env: Record<string, string>): string {
  try {
    loadSettings(env);
  } catch (err) {
    assert.ok(err instanceof SettingsError);
    assert.ok(!err.message.includes(SECRET), "message quotes a secret");
    return err.message;
  }
  assert.fail("expected a SettingsError");
}

Deno.test("settings: defaults", () => {
  const s = loadSettings({});
  assert.equal(s.port, 8000);
  assert.equal(s.kvPath, "./data/bridge.kv");
  assert.equal(s.rateLimitPerMinute, 120);
  assert.equal(s.rateLimitBurst, 60);
  assert.equal(s.maxRequestBytes, 8 * 1024 * 1024);
  assert.equal(s.allowUnauthenticated, false);
  assert.equal(s.oidc, undefined);
  assert.deepEqual(s.apiKeys, []);
});

Deno.test("settings: named and single-key forms; single key's caller is the scope name", () => {
  const s = loadSettings({
    PROCESS_API_KEYS: `ops:${SECRET},robot:with:colons:in:secret`,
    EXTERNAL_API_KEY: "customer-secret-xyz1",
  });
  assert.deepEqual(s.apiKeys.map((k) => [k.name, k.scope]), [
    ["external", "external"],
    ["ops", "process"],
    ["robot", "process"],
  ]);
  assert.equal(s.apiKeys[2].secret, "with:colons:in:secret");
});

Deno.test("settings: bad values name the variable and never print a secret", () => {
  assert.match(problemsOf({ PROCESS_API_KEYS: SECRET }), /PROCESS_API_KEYS: entry 1 is not/);
  assert.match(problemsOf({ RATE_LIMIT_PER_MINUTE: "abc" }), /RATE_LIMIT_PER_MINUTE: expected/);
  assert.match(
    problemsOf({ PROCESS_API_KEYS: `ops:${SECRET}`, EXTERNAL_API_KEYS: "ops:other-secret-12345" }),
    /PROCESS_API_KEYS: caller name "ops" is also configured in EXTERNAL_API_KEYS/,
  );
  assert.match(
    problemsOf({ PROCESS_API_KEYS: `ops:${SECRET}`, EXTERNAL_API_KEYS: `acme:${SECRET}` }),
    /secret of "ops" is also used by "acme"/,
  );
  assert.match(problemsOf({ PROCESS_API_KEYS: "ops:short" }), /at least 16/);
  assert.match(problemsOf({ OIDC_ISSUER: "https://id.example" }), /OIDC_AUDIENCE: required/);
  assert.match(problemsOf({ OIDC_ISSUER: "not a url" }), /OIDC_ISSUER/);
  assert.match(problemsOf({ ALLOW_UNAUTHENTICATED: "maybe" }), /ALLOW_UNAUTHENTICATED/);
  assert.match(problemsOf({ PORT: "70000" }), /PORT: expected 0..65535/);
});

Deno.test("settings: OIDC defaults (JWKS URL, scope names)", () => {
  const s = loadSettings({ OIDC_ISSUER: "https://id.example/", OIDC_AUDIENCE: "api://bridge" });
  assert.equal(s.oidc?.jwksUrl, "https://id.example/.well-known/jwks.json");
  assert.equal(s.oidc?.scopeExternal, "forecast:write");
  assert.equal(s.oidc?.scopeProcess, "process:run");
});

Deno.test("settings: on Deno Deploy an unset KV_PATH means the managed KV", () => {
  assert.equal(loadSettings({ DENO_DEPLOYMENT_ID: "abc" }).kvPath, "");
  assert.equal(loadSettings({ DENO_DEPLOYMENT_ID: "abc", KV_PATH: "/x.kv" }).kvPath, "/x.kv");
});

Deno.test("settings: a bad secret of the runtime config names its variable, never its value", () => {
  const mp = "mp-key-with-\u00e9-not-ascii-0001";
  const msg = problemsOf({ MARKET_PLATFORM_API_KEY: mp, SFTP_PORT: "abc" });
  assert.match(msg, /MARKET_PLATFORM_API_KEY: /);
  assert.match(msg, /SFTP_PORT: /);
  assert.ok(!msg.includes(mp));
  const key = "not-a-private-key-but-secret-material";
  const m2 = problemsOf({ SFTP_PRIVATE_KEY: key, PROCESS_API_KEYS: `ops:${SECRET},x` });
  assert.match(m2, /SFTP_PRIVATE_KEY: expected a PEM\/OpenSSH private key/);
  assert.match(m2, /PROCESS_API_KEYS: entry 2 is not of the form name:secret/);
  assert.ok(!m2.includes(key));
});

Deno.test("settings: every problem at once, one line per variable", () => {
  const msg = problemsOf({
    PROCESS_API_KEYS: `ops:${SECRET},broken${SECRET}`,
    RATE_LIMIT_PER_MINUTE: "abc",
    RATE_LIMIT_BURST: "-1",
    MAX_REQUEST_BYTES: "12MB",
  });
  assert.deepEqual(
    msg.split("\n").slice(1).map((l) => l.trim().split(":")[0]),
    ["PROCESS_API_KEYS", "RATE_LIMIT_PER_MINUTE", "RATE_LIMIT_BURST", "MAX_REQUEST_BYTES"],
  );
});

Deno.test("settings: one caller may hold two secrets of one scope (rotation), not two scopes", () => {
  const s = loadSettings({ PROCESS_API_KEYS: `ops:${SECRET},ops:second-secret-0000002` });
  assert.deepEqual(s.apiKeys.map((k) => k.name), ["ops", "ops"]);
  assert.match(
    problemsOf({ PROCESS_API_KEY: SECRET, EXTERNAL_API_KEYS: "process:other-secret-12345" }),
    /caller name "process" is also configured/,
  );
  assert.match(
    problemsOf({ PROCESS_API_KEYS: `ops:${SECRET},robot:${SECRET}` }),
    /PROCESS_API_KEYS: the secret of "robot" is also used by "ops"/,
  );
});
