/**
 * Issue 2 — HTTP auth overhead: requests/s of `GET /v1/console/status` with an API key
 * (`X-API-Key`) and with a bearer token (RS256 from `tests/support/fake_jwks.ts`), versus a bare
 * `Deno.serve` JSON handler, all measured with wrk in this run. Each server runs in its own
 * process (`bench/servers/*.ts`), wrk in another; the app on a temp-file KV with
 * `RATE_LIMIT_PER_MINUTE=0`. Rounds are interleaved (bare, key, bearer, bare, …) and the best
 * round of each is kept, which damps noise from other work on the machine.
 *
 * Env: `BENCH_WRK_SECONDS` (5), `BENCH_ROUNDS` (2), `BENCH_CONNECTIONS` (32),
 * `BENCH_QUICK=1` (skip the diagnostic targets), `BENCH_CPU_PROF=<dir>`: run the app with
 * `--cpu-prof` and print where its time went.
 *
 * Diagnostics (no goal): the bare handler with the app's 13 response headers, `GET /health` (the app's middleware stack without auth or KV) and
 * `POST /v1/console/stream-token` with each credential (auth, no KV read), to split the
 * status route's cost into stack, authentication and the handler's KV reads.
 *
 * Run alone: `deno run -A bench/http_auth.ts`
 * @module
 */
import { startFakeJwks } from "../tests/support/fake_jwks.ts";
import { printProfiles } from "./cpuprofile.ts";
import { hasWrk, report, type Row, spawnServer, tempDir, wrk, type WrkResult } from "./common.ts";

const PART = "2 http auth";
const SECONDS = Number(Deno.env.get("BENCH_WRK_SECONDS") ?? 5);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 2);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 32);
const PROF_DIR = Deno.env.get("BENCH_CPU_PROF");
/** `BENCH_QUICK=1`: only the three targets the goals name (no diagnostics). */
const QUICK = Deno.env.get("BENCH_QUICK") === "1";

export async function main(): Promise<Row[]> {
  if (!(await hasWrk())) {
    return [{
      part: PART,
      metric: "skipped: wrk is not on PATH (apt-get install -y wrk)",
      value: NaN,
      unit: "",
    }];
  }
  const jwks = await startFakeJwks();
  const dir = await tempDir("bench-auth-");
  const apiKey = `bench-${crypto.randomUUID()}`;
  const flags = PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : [];
  const app = await spawnServer("bench/servers/app.ts", {
    KV_PATH: `${dir.path}/bridge.kv`,
    PROCESS_API_KEYS: `ops:${apiKey}`,
    OIDC_ISSUER: jwks.issuer,
    OIDC_JWKS_URL: jwks.jwksUrl,
    OIDC_AUDIENCE: jwks.audience,
    RATE_LIMIT_PER_MINUTE: "0",
  }, flags);
  const bare = await spawnServer("bench/servers/bare.ts", { BARE_MODE: "json" });
  const bareHeaders = QUICK
    ? undefined
    : await spawnServer("bench/servers/bare.ts", { BARE_MODE: "headers" });
  const status = `${app.url}/v1/console/status`;
  // The status body as the app answers it, for a bare server that answers the same bytes.
  const statusBody = await (await fetch(status, { headers: { "x-api-key": apiKey } })).text();
  const bareBody = QUICK
    ? undefined
    : await spawnServer("bench/servers/bare.ts", { BARE_MODE: "body", BARE_BODY: statusBody });
  try {
    const token = await jwks.sign({ scope: "process:run" });
    const post = `${dir.path}/post.lua`;
    await Deno.writeTextFile(post, 'wrk.method = "POST"\n');
    const streamToken = `${app.url}/v1/console/stream-token`;
    type Target = { url: string; headers: Record<string, string>; script?: string };
    const targets: Record<string, Target> = {
      bare: { url: `${bare.url}/`, headers: {} },
      "API key": { url: status, headers: { "x-api-key": apiKey } },
      bearer: { url: status, headers: { authorization: `Bearer ${token}` } },
    };
    if (!QUICK) {
      // Diagnostics: the app without auth and KV, and auth without KV.
      targets["bare+hdrs"] = { url: `${bareHeaders!.url}/`, headers: {} };
      targets["bare+body"] = { url: `${bareBody!.url}/`, headers: {} };
      targets["health"] = { url: `${app.url}/health`, headers: {} };
      targets["token+key"] = { url: streamToken, headers: { "x-api-key": apiKey }, script: post };
      targets["token+jwt"] = {
        url: streamToken,
        headers: { authorization: `Bearer ${token}` },
        script: post,
      };
    }
    for (const [name, t] of Object.entries(targets)) {
      const res = await fetch(t.url, { headers: t.headers, method: t.script ? "POST" : "GET" });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`${name}: ${t.url} answered ${res.status}`);
    }
    const run = (t: Target, seconds: number) =>
      wrk(t.url, {
        threads: 1,
        connections: CONNECTIONS,
        seconds,
        headers: t.headers,
        script: t.script,
      });
    for (const t of Object.values(targets)) await run(t, 1); // warm-up (JIT, JWKS fetch)
    const best: Record<string, WrkResult> = {};
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, t] of Object.entries(targets)) {
        const r = await run(t, SECONDS);
        if (r.non2xx || r.socketErrors) {
          throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors`);
        }
        console.log(
          `round ${round} ${name.padEnd(8)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${
            r.p50Ms.toFixed(2)
          } ms  p99 ${r.p99Ms.toFixed(2)} ms`,
        );
        if (!best[name] || r.rps > best[name].rps) best[name] = r;
      }
    }
    const b = best.bare.rps;
    const row = (name: string, goal: number): Row => ({
      part: PART,
      metric: `GET /v1/console/status, ${name} (wrk -t1 -c${CONNECTIONS} -d${SECONDS}s)`,
      value: best[name].rps,
      unit: "req/s",
      baseline: "bare Deno.serve JSON",
      baselineValue: b,
      ratio: best[name].rps / b,
      goal: `≥ ${goal}× bare`,
      met: best[name].rps / b >= goal,
      note: `p50 ${best[name].p50Ms.toFixed(2)} ms, p99 ${
        best[name].p99Ms.toFixed(2)
      } ms; bare p50 ${best.bare.p50Ms.toFixed(2)} ms`,
    });
    const diag = (name: string, what: string): Row => ({
      part: PART,
      metric: `diagnostic: ${what}`,
      value: best[name].rps,
      unit: "req/s",
      baseline: "bare Deno.serve JSON",
      baselineValue: b,
      ratio: best[name].rps / b,
    });
    return [
      row("API key", 0.6),
      row("bearer", 0.55),
      ...(QUICK ? [] : [
        diag("bare+hdrs", "bare handler + 13 response headers (the app's before this issue)"),
        diag(
          "bare+body",
          `bare handler answering the status body (${statusBody.length} bytes, same headers)`,
        ),
        diag("health", "GET /health (app stack, no auth, no KV)"),
        diag("token+key", "POST /v1/console/stream-token, API key (auth + HMAC, no KV)"),
        diag("token+jwt", "POST /v1/console/stream-token, bearer (auth + HMAC, no KV)"),
      ]),
    ];
  } finally {
    await app.stop();
    await bare.stop();
    await bareHeaders?.stop();
    await bareBody?.stop();
    await jwks.close();
    await dir.remove();
    if (PROF_DIR) await printProfiles(PROF_DIR);
  }
}

if (import.meta.main) report(await main());
