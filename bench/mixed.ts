/**
 * The `mixed` part (docs/mixed-load.md): `BENCH_MIXED_N` (10,000) locations in the rig's
 * app, then `bench/mixed_clients.ts` on the load core, against the status p99 of the idle app;
 * `BENCH_CPU_PROF=<dir>` profiles the app, `BENCH_TRACE=<file>` traces it (docs/benchmarks.md).
 * @module
 */
import { addDays, nextOpenDay } from "../lib/domain/delivery_day.ts";
import { cpuPinning, DENO_FLAGS, num, report, ROOT_DIR, type Row, row } from "./common.ts";
import { type Stats, tempDir } from "./common.ts";
import { call, sendAll } from "./http.ts";
import { printProfiles } from "./profile.ts";
import { forecastBatches, locationBatches } from "./portfolio.ts";
import { type App, key, register, startApp } from "./rig.ts";

const PART = "22.6 mixed load";
const N = num("BENCH_MIXED_N", 10_000);

/** What `bench/mixed_clients.ts` prints: per kind, refusals, the slowest requests. */
interface MixedResult {
  kinds: Record<string, Stats>;
  refused: Record<string, number>;
  slowest: { at: number; kind: string; path: string; status: number; ms: number }[];
  seconds: number;
}

/** Runs the load process on the load core with `env` added; its result line. */
async function load(env: Record<string, string>): Promise<MixedResult> {
  const cmd = [...(await cpuPinning()).load, Deno.execPath(), "run", ...DENO_FLAGS];
  const opts = { args: [...cmd.slice(1), "bench/mixed_clients.ts"], cwd: ROOT_DIR, env };
  const out = await new Deno.Command(cmd[0], { ...opts, stdout: "piped", stderr: "inherit" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const m = /^MIXED_RESULT (.*)$/m.exec(text);
  if (!out.success || !m) throw new Error(`mixed_clients failed: ${text.slice(-500)}`);
  return JSON.parse(m[1]);
}

/** The passes since `since` (`GET /v1/console/passes`): count, durations, failed steps. */
async function passSummary(app: App, since: string): Promise<string> {
  const { text } = await call(`${app.url}/v1/console/passes?limit=200`, { headers: key(app.proc) });
  const ps = (JSON.parse(text) as {
    passes: { started_at: string; duration_s: number; steps_run: number; steps_failed: number }[];
  }).passes.filter((p) => p.started_at >= since);
  const d = ps.map((p) => p.duration_s.toFixed(1)).sort((a, b) => Number(a) - Number(b));
  const sum = (f: (p: typeof ps[number]) => number) => ps.reduce((a, p) => a + f(p), 0);
  return `passes during the load: ${ps.length}, duration s ${d.join(" ")}; steps run ${
    sum((p) => p.steps_run)
  }, ` +
    `failed ${sum((p) => p.steps_failed)}`;
}

/** `fahrplan_kv_retries_total{reason="conflict"}` of the app's main thread (`GET /metrics`). */
async function lostRounds(app: App): Promise<number> {
  const { text } = await call(`${app.url}/metrics`, { headers: key(app.proc) });
  return Number(/^fahrplan_kv_retries_total\{reason="conflict"\} (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-mixed-");
  const first = nextOpenDay(Date.now());
  const days = [first, addDays(first, 1)];
  const app = await startApp(dir.path, { env: { LOG_LEVEL: "warning" } });
  try {
    const t0 = performance.now();
    await register(app, locationBatches(N));
    for (const day of days) {
      await sendAll(`${app.url}/v1/forecasts`, forecastBatches(Math.round(N / 2), day), {
        headers: key(app.ext),
      });
    }
    await call(`${app.url}/v1/orchestrate`, { method: "POST", headers: key(app.proc) });
    console.log(
      `portfolio of ${N} and the first pass in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const env = {
      MIXED_URL: app.url,
      MIXED_PROC_KEY: app.proc,
      MIXED_EXT_KEY: app.ext,
      MIXED_N: String(N),
      MIXED_DAYS: days.join(","),
    };
    const idle = await load({ ...env, BENCH_MIXED_ONLY: "status", BENCH_MIXED_SECONDS: "10" });
    const since = new Date().toISOString();
    const lost0 = await lostRounds(app);
    const r = await load(env);
    const lost = (await lostRounds(app)) - lost0;
    console.log(`load average after the run: ${Deno.loadavg().join(" ")}`);
    for (const [kind, s] of Object.entries(r.kinds)) {
      const f = (v: number) => v.toFixed(1).padStart(7);
      console.log(
        `${kind.padEnd(15)} n ${String(s.n).padStart(6)}  p50 ${f(s.p50)} ms  p99 ${
          f(s.p99)
        } ms  max ${f(s.max)} ms`,
      );
    }
    for (const { at, ms, status, kind, path } of r.slowest.slice(0, 10)) {
      console.log(
        `slow: ${new Date(at).toISOString()} ${ms.toFixed(0)} ms ${status} ${kind} ${path}`,
      );
    }
    if (Object.keys(r.refused).length) console.log(`non-2xx: ${JSON.stringify(r.refused)}`);
    console.log(await passSummary(app, since));
    console.log(`main thread's KV rounds lost during the load (conflict retries): ${lost}`);
    const base = ["status p99, idle app, same clients", idle.kinds.status.p99] as [string, number];
    const all = r.kinds.all;
    const slowest = r.slowest[0];
    const clients = "32 clients + passes";
    const at = slowest && new Date(slowest.at).toISOString();
    const rows = [
      row(PART, `all requests p99 (${all.n} in ${r.seconds} s, ${clients})`, all.p99, "ms", {
        base,
        goal: ["< 250 ms", all.p99 < 250],
      }),
      row(PART, "all requests p50", all.p50, "ms", { base }),
      row(PART, "all requests max", all.max, "ms", {
        base,
        goal: ["< 1000 ms", all.max < 1000],
        note: slowest && `${slowest.kind} ${slowest.path} → ${slowest.status} at ${at}`,
      }),
    ];
    for (const [kind, s] of Object.entries(r.kinds)) {
      if (kind !== "all") {
        rows.push(row(PART, `${kind} p99 (max ${s.max.toFixed(0)} ms)`, s.p99, "ms", { base }));
      }
    }
    return rows;
  } finally {
    await app.stop();
    await dir.remove();
    await printProfiles(true);
  }
}

if (import.meta.main) report(await main());
