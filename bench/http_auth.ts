/**
 * Issue 2 — HTTP auth overhead: requests/s of `GET /v1/console/status` with an API key
 * (`X-API-Key`) and with a bearer token (RS256 from `tests/support/fake_jwks.ts`, served from the
 * app's verified-token cache), against the same-run baseline: a bare `Deno.serve`
 * (`bench/servers/bare.ts`, `BARE_MODE=body`) answering the SAME bytes — the status body and the
 * app's headers in the app's order, checked byte for byte over a raw socket before measuring
 * (only `date` differs). Goals: API key ≥ 0.6×, bearer ≥ 0.65× of that baseline.
 *
 * Method ({@link measureHttp}): every server in its own process pinned to core 0, wrk (one
 * thread) pinned to core 1 (`taskset -c`; unpinned with a warning when that is not possible); a
 * discarded warm-up per target; interleaved rounds (bare, bare+body, API key, bearer, …, bare,
 * …) and the best round of each target kept; each run reports the server's CPU share (under 90%:
 * starved by other load, warned). The app runs on a temp-file KV with `RATE_LIMIT_PER_MINUTE=0`.
 *
 * Env: `BENCH_WRK_SECONDS` (5), `BENCH_ROUNDS` (3), `BENCH_WARMUP_SECONDS` (2),
 * `BENCH_CONNECTIONS` (32), `BENCH_PIN=0` (do not pin), `BENCH_QUICK=1` (skip the diagnostic
 * targets but the tiny-body bare one), `BENCH_CPU_PROF=<dir>`: run the app with `--cpu-prof` and
 * print where its time went.
 *
 * Diagnostics (no goal, same baseline): a bare handler answering `{"ok":true}` with no extra
 * headers (the tiny-body floor; if it comes out below the same-bytes baseline the run was noisy),
 * the same tiny body with the 13 headers the app sent before issue 2, `GET /health` (the app's
 * middleware stack without auth or KV) and `POST /v1/console/stream-token` with each credential
 * (auth, no KV read), to split the status route's cost into stack, authentication and handler.
 *
 * Run alone: `deno run -A bench/http_auth.ts`
 * @module
 */
import { startFakeJwks } from "../tests/support/fake_jwks.ts";
import { printProfiles } from "./cpuprofile.ts";
import {
  cpuPinning,
  hasWrk,
  httpMethodFromEnv,
  type HttpTarget,
  measureHttp,
  type RawAnswer,
  rawHttp,
  report,
  type Row,
  type ServerProcess,
  spawnServer,
  tempDir,
} from "./common.ts";

const PART = "2 http auth";
const PROF_DIR = Deno.env.get("BENCH_CPU_PROF");
/** `BENCH_QUICK=1`: only the goal targets, their baseline and the tiny-body bare server. */
const QUICK = Deno.env.get("BENCH_QUICK") === "1";

/** Header lines and body of an answer, `date` left out (it is the only part that may differ). */
const wire = (a: RawAnswer) =>
  [a.status, ...a.headers.filter(([k]) => k.toLowerCase() !== "date").map(([k, v]) => `${k}: ${v}`)]
    .join("\n") + `\n\n${a.body}`;

/** Throws unless `b` answers exactly what `a` answers (but the `date` header). */
function assertSameAnswer(what: string, a: RawAnswer, b: RawAnswer): void {
  if (wire(a) !== wire(b)) throw new Error(`${what}: answers differ\n${wire(a)}\n---\n${wire(b)}`);
}

/** Runs the part; returns its rows (goal rows first, then diagnostics). */
export async function main(): Promise<Row[]> {
  if (!(await hasWrk())) {
    return [{
      part: PART,
      metric: "skipped: wrk is not on PATH (apt-get install -y wrk)",
      value: NaN,
      unit: "",
    }];
  }
  const method = httpMethodFromEnv();
  const pin = await cpuPinning();
  console.log(
    `method: ${pin.describe}; warm-up ${method.warmupSeconds} s per target; ` +
      `${method.rounds} interleaved rounds of ${method.seconds} s, best kept; ` +
      `wrk -t1 -c${method.connections}`,
  );
  const jwks = await startFakeJwks();
  const dir = await tempDir("bench-auth-");
  const apiKey = `bench-${crypto.randomUUID()}`;
  const flags = PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : [];
  const servers: ServerProcess[] = [];
  const serve = async (script: string, env: Record<string, string>, f: string[] = []) => {
    const s = await spawnServer(script, env, f, { pinned: true });
    servers.push(s);
    return s;
  };
  try {
    const app = await serve("bench/servers/app.ts", {
      KV_PATH: `${dir.path}/bridge.kv`,
      PROCESS_API_KEYS: `ops:${apiKey}`,
      OIDC_ISSUER: jwks.issuer,
      OIDC_JWKS_URL: jwks.jwksUrl,
      OIDC_AUDIENCE: jwks.audience,
      RATE_LIMIT_PER_MINUTE: "0",
    }, flags);
    const token = await jwks.sign({ scope: "process:run" });
    const status = `${app.url}/v1/console/status`;
    // The status answer as the app sends it, for a bare server that sends the same bytes.
    const byKey = await rawHttp(status, { "x-api-key": apiKey });
    const byToken = await rawHttp(status, { authorization: `Bearer ${token}` });
    if (!byKey.status.includes(" 200 ")) throw new Error(`status route: ${byKey.status}`);
    assertSameAnswer("status route, API key vs bearer", byKey, byToken);
    // Deno.serve adds content-length, date and (to our `connection: close`) connection itself.
    const sent = byKey.headers.filter(([k]) => !/^(date|content-length|connection)$/i.test(k));
    const bare = await serve("bench/servers/bare.ts", { BARE_MODE: "json" });
    const bareBody = await serve("bench/servers/bare.ts", {
      BARE_MODE: "body",
      BARE_BODY: byKey.body,
      BARE_HEADERS: JSON.stringify(sent),
    });
    assertSameAnswer("bare same-bytes server vs status route", byKey, await rawHttp(bareBody.url));
    const bareHeaders = QUICK
      ? undefined
      : await serve("bench/servers/bare.ts", { BARE_MODE: "headers" });

    const post = `${dir.path}/post.lua`;
    await Deno.writeTextFile(post, 'wrk.method = "POST"\n');
    const streamToken = `${app.url}/v1/console/stream-token`;
    const targets: Record<string, HttpTarget> = {
      bare: { url: `${bare.url}/`, pid: bare.pid },
      "bare+body": { url: `${bareBody.url}/`, pid: bareBody.pid },
      "API key": { url: status, headers: { "x-api-key": apiKey }, pid: app.pid },
      bearer: { url: status, headers: { authorization: `Bearer ${token}` }, pid: app.pid },
    };
    if (bareHeaders) {
      targets["bare+hdrs"] = { url: `${bareHeaders.url}/`, pid: bareHeaders.pid };
      targets["health"] = { url: `${app.url}/health`, pid: app.pid };
      const auth = { "x-api-key": apiKey };
      targets["token+key"] = { url: streamToken, headers: auth, script: post, pid: app.pid };
      targets["token+jwt"] = {
        url: streamToken,
        headers: { authorization: `Bearer ${token}` },
        script: post,
        pid: app.pid,
      };
    }
    for (const [name, t] of Object.entries(targets)) {
      const res = await fetch(t.url, { headers: t.headers, method: t.script ? "POST" : "GET" });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`${name}: ${t.url} answered ${res.status}`);
    }

    const m = await measureHttp(targets, method);
    const base = m["bare+body"].best;
    const spread = (name: string) =>
      `p50 ${m[name].best.p50Ms.toFixed(2)} ms, p99 ${m[name].best.p99Ms.toFixed(2)} ms, ` +
      `server cpu ${(m[name].bestCpu * 100).toFixed(0)}%; ` +
      `rounds ${m[name].rounds.map((r) => r.toFixed(0)).join(" / ")} req/s`;
    const common = (name: string) => ({
      part: PART,
      value: m[name].best.rps,
      unit: "req/s",
      baseline: `bare Deno.serve, same ${byKey.body.length}-byte body + headers`,
      baselineValue: base.rps,
      ratio: m[name].best.rps / base.rps,
    });
    const how = `wrk -t1 -c${method.connections} -d${method.seconds}s, ${
      pin.server.length ? "pinned" : "UNPINNED"
    }, best of ${method.rounds}`;
    // A best round run starved (by other load) makes the ratio unreliable: say so in the row.
    const starved = (name: string) => m[name].bestCpu < 0.9;
    const row = (name: string, what: string, goal: number): Row => {
      const noisy = starved(name) || starved("bare+body");
      return {
        ...common(name),
        metric: `GET /v1/console/status, ${what} (${how})`,
        goal: `≥ ${goal}× bare same bytes${noisy ? " (NOISY: a best round ran starved)" : ""}`,
        met: m[name].best.rps / base.rps >= goal,
        note: `${spread(name)}; baseline ${spread("bare+body")}`,
      };
    };
    const diag = (name: string, what: string, note?: string): Row => ({
      ...common(name),
      metric: `diagnostic: ${what}`,
      goal: "diagnostic",
      note: note ?? spread(name),
    });
    const tinyBelow = m.bare.best.rps < base.rps;
    if (tinyBelow) {
      console.error(
        "warning: the tiny-body bare server came out below the same-bytes one: noisy run",
      );
    }
    return [
      row("API key", "API key", 0.6),
      row("bearer", "bearer (verified-token cache)", 0.65),
      diag(
        "bare",
        'bare handler answering {"ok":true}, no extra headers',
        `${spread("bare")}${tinyBelow ? "; BELOW the same-bytes baseline: noisy run" : ""}`,
      ),
      ...(QUICK ? [] : [
        diag("bare+hdrs", `bare handler, {"ok":true} + 13 headers (the app's before issue 2)`),
        diag("health", "GET /health (app stack, no auth, no KV)"),
        diag("token+key", "POST /v1/console/stream-token, API key (auth + HMAC, no KV)"),
        diag("token+jwt", "POST /v1/console/stream-token, bearer (auth + HMAC, no KV)"),
      ]),
    ];
  } finally {
    for (const s of servers) await s.stop();
    await jwks.close();
    await dir.remove();
    if (PROF_DIR) await printProfiles(PROF_DIR);
  }
}

if (import.meta.main) report(await main());
