/**
 * Issue 22 item 6 — mixed load: the real app (its own process, `bench/servers/app.ts`, temp-file
 * KV, pinned to the server core) with a portfolio of `BENCH_MIXED_N` (10,000) market locations
 * registered over HTTP and customer forecasts for half of them on the first two open delivery
 * days, then one orchestrator pass (aggregates, CSV, ESS files in the outbox) before the load.
 * Load: `bench/mixed_clients.ts` on the load core — 32 closed-loop clients mixing console status,
 * the delivery-days overview, event pages, single market-location PUTs, schedule documents (ESS
 * and CIM) and forecast batches, while a pass is asked for every 5 s (see that module for the mix
 * and its settings). Reports p50/p99/max per request kind and over all client requests.
 *
 * Goal: p99 of all requests < 250 ms (absolute). Baseline, same run: `GET /v1/console/status`
 * p99 on the idle app (the same 32 clients asking only for the status, no passes) — what the
 * request path costs without the mix.
 *
 * `BENCH_CPU_PROF=<dir>`: run the app with `--cpu-prof` and print where its main thread spent its
 * time and which long stretches held it (`bench/cpuprofile_stretches.ts`).
 *
 * Run alone: `deno run -A bench/mixed.ts`
 * @module
 */
import { nextOpenDay, quarterHourCount } from "../lib/domain/delivery_day.ts";
import { addDays } from "../lib/domain/delivery_day.ts";
import {
  cpuPinning,
  DENO_FLAGS,
  report,
  ROOT_DIR,
  type Row,
  spawnServer,
  stats,
  tempDir,
} from "./common.ts";
import { printProfiles } from "./cpuprofile.ts";
import { printStretches } from "./cpuprofile_stretches.ts";
import { forecastBatches, locationBatches, postAll } from "./portfolio.ts";

const PART = "22.6 mixed load";
const N = Number(Deno.env.get("BENCH_MIXED_N") ?? 10_000);
const PROF_DIR = Deno.env.get("BENCH_CPU_PROF");
const GOAL_MS = 250;

type Stats = ReturnType<typeof stats>;
interface MixedResult {
  kinds: Record<string, Stats>;
  refused: Record<string, number>;
  seconds: number;
}

/** Runs the load process on the load core with `env` added; returns its result line. */
async function load(env: Record<string, string>): Promise<MixedResult> {
  const cmd = [...(await cpuPinning()).load, Deno.execPath(), "run", ...DENO_FLAGS];
  const out = await new Deno.Command(cmd[0], {
    args: [...cmd.slice(1), "bench/mixed_clients.ts"],
    cwd: ROOT_DIR,
    env,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const m = /^MIXED_RESULT (.*)$/m.exec(text);
  if (!out.success || !m) throw new Error(`mixed_clients failed: ${text.slice(-500)}`);
  return JSON.parse(m[1]);
}

/**
 * The orchestrator passes that started during the mixed load (`GET /v1/console/passes`): how many,
 * their durations (s) and the steps that failed, e.g. a forecast step that gave up.
 */
async function passSummary(url: string, key: string, since: string): Promise<string> {
  const res = await fetch(`${url}/v1/console/passes?limit=200`, { headers: { "x-api-key": key } });
  if (!res.ok) return `passes: ${res.status}`;
  const page = await res.json() as {
    passes: { started_at: string; duration_s: number; steps_run: number; steps_failed: number }[];
  };
  const ps = page.passes.filter((p) => p.started_at >= since);
  const d = ps.map((p) => p.duration_s).sort((a, b) => a - b);
  const failed = ps.reduce((a, p) => a + p.steps_failed, 0);
  const run = ps.reduce((a, p) => a + p.steps_run, 0);
  return `passes during the load: ${ps.length}, duration s ${
    d.map((x) => x.toFixed(1)).join(" ")
  }; steps run ${run}, failed ${failed}`;
}

/** `fahrplan_kv_retries_total{reason="conflict"}` of the app's main thread (`GET /metrics`). */
async function lostRounds(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { "x-api-key": key } });
  const text = await res.text();
  const m = /^fahrplan_kv_retries_total\{reason="conflict"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-mixed-");
  const proc = `bench-proc-${crypto.randomUUID()}`;
  const ext = `bench-ext-${crypto.randomUUID()}`;
  const first = nextOpenDay(Date.now());
  const days = [first, addDays(first, 1)];
  const flags = PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : [];
  const app = await spawnServer(
    "bench/servers/app.ts",
    {
      KV_PATH: `${dir.path}/bridge.kv`,
      PROCESS_API_KEYS: `operator:${proc}`,
      EXTERNAL_API_KEYS: `customer:${ext}`,
      RATE_LIMIT_PER_MINUTE: "0",
      BALANCING_GROUP: "11XDE-EXAMPLE--H",
      SENDER_EIC: "11XDE-EXAMPLE--H",
      COUNTERPARTY_EIC: "10XDE-RWENET---W",
      SCHEDULE_FORMAT: "ess",
      SCHEDULE_CHANNEL: "files",
      SCHEDULE_INBOX_DIR: `${dir.path}/inbox`,
      OUTBOX_DIR: `${dir.path}/outbox`,
      PUBLISH_TARGET: "outbox",
      LOG_LEVEL: "warning",
    },
    flags,
    { pinned: true },
  );
  const rows: Row[] = [];
  try {
    const t0 = performance.now();
    await postAll(
      `${app.url}/v1/market-locations`,
      locationBatches(N),
      { "x-api-key": ext },
      4,
      "PUT",
    );
    for (const day of days) {
      const bodies = forecastBatches(Math.round(N / 2), day, quarterHourCount(day));
      await postAll(`${app.url}/v1/forecasts`, bodies, { "x-api-key": ext }, 4);
    }
    const pass = await fetch(`${app.url}/v1/orchestrate`, {
      method: "POST",
      headers: { "x-api-key": proc },
    });
    const passBody = await pass.text();
    if (pass.status !== 200) throw new Error(`first pass → ${pass.status}: ${passBody}`);
    console.log(
      `portfolio of ${N} and the first pass in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const common = {
      MIXED_URL: app.url,
      MIXED_PROC_KEY: proc,
      MIXED_EXT_KEY: ext,
      MIXED_N: String(N),
      MIXED_DAYS: days.join(","),
    };
    const idle = await load({ ...common, BENCH_MIXED_ONLY: "status", BENCH_MIXED_SECONDS: "10" });
    const loadStart = new Date().toISOString();
    const lost0 = await lostRounds(app.url, proc);
    const r = await load(common);
    const lost1 = await lostRounds(app.url, proc);
    const uptime = await Deno.readTextFile("/proc/loadavg").catch(() => "?");
    console.log(`load average after the run: ${uptime.trim()}`);
    for (const [kind, s] of Object.entries(r.kinds)) {
      console.log(
        `${kind.padEnd(15)} n ${String(s.n).padStart(6)}  p50 ${
          s.p50.toFixed(1).padStart(7)
        } ms  p99 ${s.p99.toFixed(1).padStart(7)} ms  max ${s.max.toFixed(1).padStart(7)} ms`,
      );
    }
    if (Object.keys(r.refused).length) console.log(`non-2xx: ${JSON.stringify(r.refused)}`);
    console.log(await passSummary(app.url, proc, loadStart));
    console.log(
      `main thread's KV rounds lost during the load (conflict retries): ${lost1 - lost0}`,
    );
    const base = idle.kinds.status.p99;
    const all = r.kinds.all;
    const row = (metric: string, value: number, goal?: boolean): Row => ({
      part: PART,
      metric,
      value,
      unit: "ms",
      baseline: "status p99, idle app, same clients",
      baselineValue: base,
      ratio: value / base,
      ...(goal ? { goal: `< ${GOAL_MS} ms`, met: value < GOAL_MS } : {}),
    });
    rows.push(
      row(`all requests p99 (${all.n} in ${r.seconds} s, 32 clients + passes)`, all.p99, true),
    );
    rows.push(row("all requests p50", all.p50), row("all requests max", all.max));
    for (const [kind, s] of Object.entries(r.kinds)) {
      if (kind !== "all") rows.push(row(`${kind} p99 (max ${s.max.toFixed(0)} ms)`, s.p99));
    }
  } finally {
    await app.stop();
    await dir.remove();
  }
  if (PROF_DIR) {
    await printProfiles(PROF_DIR);
    await printStretches(PROF_DIR);
  }
  return rows;
}

if (import.meta.main) report(await main());
