/**
 * The `http_auth` part (docs/benchmarks.md, README "Benchmarks"): `GET /v1/console/status`
 * req/s with an API key and a bearer token against a bare server answering the same bytes (checked
 * on a raw socket), by {@link measureHttp}; diagnostics without `BENCH_QUICK=1`.
 * @module
 */
import { startFakeJwks } from "../tests/support/fake_jwks.ts";
import { cpuPinning, report, type Row, row, type ServerProcess, spawnServer } from "./common.ts";
import { tempDir } from "./common.ts";
import { BUSY, hasWrk, httpMethodFromEnv, type HttpTarget, measureHttp } from "./http.ts";
import { type RawAnswer, rawHttp } from "./http.ts";
import { printProfiles } from "./profile.ts";
import { key, startApp } from "./rig.ts";

const PART = "2 http auth";
const QUICK = Deno.env.get("BENCH_QUICK") === "1";

/** Status line, headers but `date`, and body of an answer. */
const wire = (a: RawAnswer) =>
  [a.status, ...a.headers.filter(([k]) => !/^date$/i.test(k)).map((h) => h.join(": "))].join("\n") +
  `\n\n${a.body}`;
const assertSame = (what: string, a: RawAnswer, b: RawAnswer) => {
  if (wire(a) !== wire(b)) throw new Error(`${what}: answers differ\n${wire(a)}\n---\n${wire(b)}`);
};

/** Runs the part; its rows (goal rows first, then diagnostics). */
export async function main(): Promise<Row[]> {
  if (!(await hasWrk())) {
    return [row(PART, "skipped: wrk is not on PATH (apt-get install -y wrk)", NaN, "")];
  }
  const method = httpMethodFromEnv();
  const pin = await cpuPinning();
  const { warmupSeconds, rounds, seconds } = method;
  console.log(`${pin.describe}; warm-up ${warmupSeconds} s, ${rounds} rounds of ${seconds} s`);
  const jwks = await startFakeJwks();
  const dir = await tempDir("bench-auth-");
  const servers: ServerProcess[] = [];
  const bare = async (env: Record<string, string>) => {
    const s = await spawnServer("bench/servers/bare.ts", env, [], { pinned: true });
    servers.push(s);
    return { url: `${s.url}/`, pid: s.pid };
  };
  const app = await startApp(dir.path, {
    env: { OIDC_ISSUER: jwks.issuer, OIDC_JWKS_URL: jwks.jwksUrl, OIDC_AUDIENCE: jwks.audience },
  });
  try {
    const token = await jwks.sign({ scope: "process:run" });
    const bearer = { authorization: `Bearer ${token}` };
    const status = `${app.url}/v1/console/status`;
    const byKey = await rawHttp(status, key(app.proc));
    if (!byKey.status.includes(" 200 ")) throw new Error(`status route: ${byKey.status}`);
    assertSame("status route, API key vs bearer", byKey, await rawHttp(status, bearer));
    // Deno.serve adds content-length, date and (to `connection: close`) connection itself.
    const sent = byKey.headers.filter(([k]) => !/^(date|content-length|connection)$/i.test(k));
    const headers = JSON.stringify(sent);
    const same = await bare({ BARE_MODE: "body", BARE_BODY: byKey.body, BARE_HEADERS: headers });
    assertSame("bare same-bytes server vs status route", byKey, await rawHttp(same.url));
    const post = `${dir.path}/post.lua`;
    await Deno.writeTextFile(post, 'wrk.method = "POST"\n');
    const token_ = `${app.url}/v1/console/stream-token`;
    const pid = app.server.pid;
    const targets: Record<string, HttpTarget> = {
      bare: await bare({ BARE_MODE: "json" }),
      "bare+body": same,
      "API key": { url: status, headers: key(app.proc), pid },
      bearer: { url: status, headers: bearer, pid },
    };
    if (!QUICK) {
      targets["bare+hdrs"] = await bare({ BARE_MODE: "headers" });
      targets.health = { url: `${app.url}/health`, pid };
      targets["token+key"] = { url: token_, headers: key(app.proc), script: post, pid };
      targets["token+jwt"] = { url: token_, headers: bearer, script: post, pid };
    }
    for (const [name, t] of Object.entries(targets)) {
      const res = await fetch(t.url, { headers: t.headers, method: t.script ? "POST" : "GET" });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`${name}: ${t.url} answered ${res.status}`);
    }
    const m = await measureHttp(targets, method);
    const base = m["bare+body"];
    const spread = (name: string) => {
      const { best: { p50Ms, p99Ms }, bestCpu, rounds } = m[name];
      return `p50 ${p50Ms.toFixed(2)} ms, p99 ${p99Ms.toFixed(2)} ms, server cpu ` +
        `${(bestCpu * 100).toFixed(0)}%; rounds ${
          rounds.map((r) => r.toFixed(0)).join(" / ")
        } req/s`;
    };
    const pinned = pin.server.length ? "pinned" : "UNPINNED";
    const how = `wrk -t1 -c${method.connections} -d${seconds}s, ${pinned}, best of ${rounds}`;
    const one = (name: string, metric: string, o: { goal?: number; note?: string } = {}) => {
      const ratio = m[name].best.rps / base.best.rps;
      const starved = m[name].bestCpu < BUSY || base.bestCpu < BUSY;
      const noisy = starved ? " (NOISY: a best round ran starved)" : "";
      return row(PART, metric, m[name].best.rps, "req/s", {
        base: [`bare Deno.serve, same ${byKey.body.length}-byte body + headers`, base.best.rps],
        goal: o.goal ? [`≥ ${o.goal}× bare same bytes${noisy}`, ratio >= o.goal] : ["diagnostic"],
        note: o.note ?? `${spread(name)}${o.goal ? `; baseline ${spread("bare+body")}` : ""}`,
      });
    };
    const get = "GET /v1/console/status";
    const below = m.bare.best.rps < base.best.rps ? "; BELOW the same-bytes baseline: noisy" : "";
    return [
      one("API key", `${get}, API key (${how})`, { goal: 0.6 }),
      one("bearer", `${get}, bearer (verified-token cache) (${how})`, { goal: 0.65 }),
      one("bare", 'diagnostic: bare handler answering {"ok":true}, no extra headers', {
        note: spread("bare") + below,
      }),
      ...(QUICK ? [] : [
        one("bare+hdrs", `diagnostic: bare handler, {"ok":true} + 13 headers (before issue 2)`),
        one("health", "diagnostic: GET /health (app stack, no auth, no KV)"),
        one("token+key", "diagnostic: POST /v1/console/stream-token, API key (auth + HMAC, no KV)"),
        one("token+jwt", "diagnostic: POST /v1/console/stream-token, bearer (auth + HMAC, no KV)"),
      ]),
    ];
  } finally {
    for (const s of servers) await s.stop();
    await app.stop();
    await jwks.close();
    await dir.remove();
    await printProfiles();
  }
}

if (import.meta.main) report(await main());
