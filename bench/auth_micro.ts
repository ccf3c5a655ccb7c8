/**
 * The `auth_micro` part (docs/benchmarks.md): `deno bench` of the authenticated request path in
 * process (the app's `fetch` with an API key and a bearer token against a bare handler) and of its
 * pieces. Run alone: `deno bench -A bench/auth_micro.ts`.
 * @module
 */
import { createApp } from "../app.ts";
import { KeyRing } from "../lib/auth/api_keys.ts";
import { OidcVerifier } from "../lib/auth/oidc.ts";
import { systemClock } from "../lib/clock.ts";
import { loadSettings } from "../lib/settings.ts";
import { startFakeJwks } from "../tests/support/fake_jwks.ts";

const dir = Deno.makeTempDirSync({ prefix: "bench-auth-micro-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const jwks = await startFakeJwks();
const apiKey = `bench-${crypto.randomUUID()}`;
const settings = loadSettings({
  KV_PATH: `${dir}/bridge.kv`,
  PROCESS_API_KEYS: `ops:${apiKey}`,
  OIDC_ISSUER: jwks.issuer,
  OIDC_JWKS_URL: jwks.jwksUrl,
  OIDC_AUDIENCE: jwks.audience,
  RATE_LIMIT_PER_MINUTE: "0",
});
const kv = await Deno.openKv(settings.kvPath);
const bridge = await createApp({ settings, kv });
const token = await jwks.sign({ scope: "process:run" });
const info = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
  completed: Promise.resolve(),
} as unknown as Deno.ServeHandlerInfo;
const STATUS = "http://127.0.0.1/v1/console/status";
const TOKEN = "http://127.0.0.1/v1/console/stream-token";
const key = { "x-api-key": apiKey };
const bearer = { authorization: `Bearer ${token}` };

async function call(url: string, headers: Record<string, string>, method = "GET") {
  const res = await bridge.fetch(new Request(url, { method, headers }), info);
  if (res.status !== 200) throw new Error(`${method} ${url} → ${res.status}`);
  await res.arrayBuffer();
}
await call(STATUS, bearer); // fetches the JWKS once

const bare = () => new Response(JSON.stringify({ ok: true }));

Deno.bench("bare handler", { group: "request", baseline: true }, async () => {
  await bare().arrayBuffer();
});
Deno.bench("app GET status, API key", { group: "request" }, () => call(STATUS, key));
Deno.bench("app GET status, bearer", { group: "request" }, () => call(STATUS, bearer));
Deno.bench("app POST stream-token, API key (no KV)", { group: "request" }, async () => {
  await call(TOKEN, key, "POST");
});
Deno.bench("app POST stream-token, bearer (no KV)", { group: "request" }, async () => {
  await call(TOKEN, bearer, "POST");
});

const keys = new KeyRing(settings.apiKeys);
const oidc = new OidcVerifier(settings.oidc!, systemClock);
await oidc.verify(token);
Deno.bench("KeyRing.match", { group: "pieces", baseline: true }, () => {
  keys.match(apiKey);
});
Deno.bench("OidcVerifier.verify (cached)", { group: "pieces" }, async () => {
  await oidc.verify(token);
});
Deno.bench("status handler's 2 kv.get, in sequence", { group: "pieces" }, async () => {
  await kv.get(["config_overlay"]);
  await kv.get(["orchestrator"]);
});
Deno.bench("32 concurrent kv.get (per iteration: all 32)", { group: "pieces" }, async () => {
  await Promise.all(Array.from({ length: 32 }, () => kv.get(["orchestrator"])));
});
