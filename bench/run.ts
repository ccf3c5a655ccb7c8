/**
 * `deno task bench [-- part …]` — runs the benchmark parts, each in its own `deno run` subprocess
 * (flags {@link DENO_FLAGS}, working directory the project root), collects the `BENCH_ROWS <json>`
 * line each prints last, and prints one summary table (part, metric, value, baseline, ratio, goal,
 * met). Every number is measured against a baseline taken in the same run (see each part's module
 * doc for what its baseline is).
 *
 * Exit status: non-zero only when a part crashed (non-zero exit, no `BENCH_ROWS`, or past its time
 * limit). A missed goal is reported in the table, not a failure.
 *
 * Arguments: part names to run (default: all, in the order below), e.g.
 * `deno task bench -- http_auth event_append`. `--list` prints the parts.
 *
 * Env: `BENCH_QUICK=1` smaller sizes and shorter runs (a smoke test of the harness, numbers not
 * comparable with the goals); `BENCH_PART_TIMEOUT_S` (default 900) per part; `BENCH_JSON=<file>`
 * also writes the rows as JSON there. Any part-specific `BENCH_*` variable set by the caller wins
 * over the quick-mode defaults.
 * @module
 */
import { DENO_FLAGS, onCleanup, ROOT_DIR, type Row, sleep, table } from "./common.ts";

interface Part {
  name: string;
  /** What the part measures (for `--list`). */
  what: string;
  /** `deno run` script, or for `deno bench` files the `bench` kind. */
  script: string;
  kind?: "run" | "bench";
  /** Env defaults in quick mode. */
  quick?: Record<string, string>;
}

const PARTS: Part[] = [
  {
    name: "http_auth",
    what: "issue 2: GET /v1/console/status req/s, API key and bearer, vs bare same-bytes (wrk)",
    script: "bench/http_auth.ts",
    quick: { BENCH_WRK_SECONDS: "2", BENCH_ROUNDS: "1", BENCH_WARMUP_SECONDS: "1" },
  },
  {
    name: "auth_micro",
    what: "issue 2 diagnostics: in-process deno bench of the auth pieces (no goal)",
    script: "bench/auth_bench.ts",
    kind: "bench",
  },
  {
    name: "event_append",
    what: "issue 3a: durable EventLog.append events/s vs one atomic per event",
    script: "bench/event_append.ts",
    quick: { BENCH_EVENTS: "5000" },
  },
  {
    name: "event_history",
    what: "issue 3b: history page of 100 out of 1,000,000 events vs bare kv.list",
    script: "bench/event_history.ts",
    quick: { BENCH_HISTORY_EVENTS: "50000", BENCH_SAMPLES: "300" },
  },
  {
    name: "stream_fanout",
    what: "issue 3c: SSE append→receive p99, 100 and 1,000 streams, vs bare SSE fan-out",
    script: "bench/stream_fanout.ts",
    quick: { BENCH_CLIENTS: "100", BENCH_STREAM_SECONDS: "3" },
  },

  {
    name: "ingest_http",
    what: "issue 5: POST /v1/forecasts batches of 500 over HTTP, forecasts/s, vs bare servers",
    script: "bench/ingest_http.ts",
    quick: { BENCH_INGEST_LOCATIONS: "5000" },
  },
  {
    name: "day_10k",
    what: "issue 6: 10,000-location day, registration → ingestion → … → stored receipt (HTTPS)",
    script: "bench/day_10k.ts",
    quick: { BENCH_DAY_LOCATIONS: "1000" },
  },
  {
    name: "replicas",
    what:
      "issue 22: two processes on one KV file, 2 × 5,000 single writes + batches + forecasts: 2xx/503/5xx",
    script: "bench/replicas.ts",
    quick: { BENCH_REPLICAS_SINGLES: "500", BENCH_REPLICAS_BATCHES: "2" },
  },
  {
    name: "mixed",
    what: "issue 22: 32 mixed clients + orchestrator passes on 10,000 locations, p99 per kind",
    script: "bench/mixed.ts",
    quick: { BENCH_MIXED_N: "2000", BENCH_MIXED_SECONDS: "10", BENCH_MIXED_WARMUP_S: "2" },
  },
  {
    name: "intraday",
    what:
      "issue 21: intraday pass (aggregate, freeze, render, write 4 ESS) at 100,000 and 1,000,000; batch → files with the tick",
    script: "bench/intraday.ts",
    quick: {
      BENCH_INTRADAY_SIZES: "20000",
      BENCH_INTRADAY_ROUNDS: "2",
      BENCH_INTRADAY_TICK_ROUNDS: "2",
    },
  },
  {
    name: "settlement",
    what:
      "issue 27: MSCONS import of 10,000 locations × 1 day; settlement of a day at 1,000,000 locations (100,000 metered)",
    script: "bench/settlement.ts",
    quick: {
      BENCH_SETTLE_N: "50000",
      BENCH_SETTLE_METERED: "5000",
      BENCH_SETTLE_MSCONS_N: "1000",
    },
  },
  {
    name: "million",
    what: "1,000,000 locations: forecast+aggregate, registration, overview, probes, 10 days",
    script: "bench/million.ts",
    quick: {
      BENCH_MILLION_N: "20000",
      BENCH_MILLION_SMALL_N: "5000",
      BENCH_MILLION_CUSTOMERS: "2000",
    },
  },
];

const QUICK = Deno.env.get("BENCH_QUICK") === "1";
const PART_TIMEOUT_MS = Number(Deno.env.get("BENCH_PART_TIMEOUT_S") ?? 900) * 1000;
const JSON_OUT = Deno.env.get("BENCH_JSON");

interface Outcome {
  part: Part;
  rows: Row[];
  seconds: number;
  /** Why the part counts as crashed, if it did. */
  crash?: string;
}

/** `deno bench --json` output → rows (mean time per iteration vs the group's baseline). */
function benchRows(json: string): Row[] {
  const report = JSON.parse(json) as {
    benches: {
      name: string;
      group: string | null;
      baseline: boolean;
      results: { ok?: { avg: number; p99: number } }[];
    }[];
  };
  const rows: Row[] = [];
  const base = new Map<string, { name: string; avg: number }>();
  for (const b of report.benches) {
    const ok = b.results[0]?.ok;
    if (b.baseline && ok) base.set(b.group ?? "", { name: b.name, avg: ok.avg / 1000 });
  }
  for (const b of report.benches) {
    const ok = b.results[0]?.ok;
    if (!ok) continue;
    const ref = base.get(b.group ?? "");
    const us = ok.avg / 1000;
    rows.push({
      part: "2 auth micro",
      metric: `${b.group}: ${b.name} (mean per iteration)`,
      value: us,
      unit: "µs",
      baseline: ref?.name,
      baselineValue: ref && ref.name !== b.name ? ref.avg : undefined,
      ratio: ref && ref.name !== b.name ? us / ref.avg : undefined,
    });
  }
  return rows;
}

/** Copies a child's output stream to `sink` line-wise with a prefix; resolves to all of it. */
async function pump(
  stream: ReadableStream<Uint8Array>,
  prefix: string,
  sink: { write(p: Uint8Array): Promise<number> },
) {
  const enc = new TextEncoder();
  let all = "";
  let partial = "";
  const dec = new TextDecoder();
  for await (const bytes of stream) {
    const chunk = dec.decode(bytes, { stream: true });
    all += chunk;
    partial += chunk;
    const cut = partial.lastIndexOf("\n");
    if (cut < 0) continue;
    const lines = partial.slice(0, cut + 1).split("\n").slice(0, -1)
      // the machine-readable line is long and repeated in the summary: do not echo it
      .filter((l) => !l.startsWith("BENCH_ROWS "));
    partial = partial.slice(cut + 1);
    if (lines.length) await sink.write(enc.encode(lines.map((l) => `${prefix}${l}\n`).join("")));
  }
  if (partial) await sink.write(enc.encode(`${prefix}${partial}\n`));
  return all;
}

async function runPart(part: Part): Promise<Outcome> {
  const env: Record<string, string> = {};
  if (QUICK) {
    for (const [k, v] of Object.entries(part.quick ?? {})) {
      if (Deno.env.get(k) === undefined) env[k] = v;
    }
  }
  const args = part.kind === "bench"
    ? ["bench", ...DENO_FLAGS, "--json", part.script]
    : ["run", ...DENO_FLAGS, part.script];
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT_DIR,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const drop = onCleanup(() => child.kill("SIGKILL"));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 5_000);
  }, PART_TIMEOUT_MS);
  const prefix = `[${part.name}] `;
  // deno bench --json prints the JSON on stdout: keep it off the console.
  const [out, , status] = await Promise.all([
    part.kind === "bench"
      ? new Response(child.stdout).text()
      : pump(child.stdout, prefix, Deno.stdout),
    pump(child.stderr, prefix, Deno.stderr),
    child.status,
  ]);
  clearTimeout(timer);
  drop();
  const seconds = (performance.now() - t0) / 1000;
  const outcome: Outcome = { part, rows: [], seconds };
  try {
    if (part.kind === "bench") {
      outcome.rows = benchRows(out);
    } else {
      const line = out.split("\n").reverse().find((l) => l.startsWith("BENCH_ROWS "));
      if (line) outcome.rows = JSON.parse(line.slice("BENCH_ROWS ".length)) as Row[];
    }
  } catch (err) {
    outcome.crash = `unreadable output: ${(err as Error).message}`;
  }
  if (timedOut) outcome.crash = `killed after the time limit of ${PART_TIMEOUT_MS / 1000} s`;
  else if (!status.success) outcome.crash = `exited with code ${status.code}`;
  else if (!outcome.rows.length) outcome.crash ??= "printed no BENCH_ROWS";
  return outcome;
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--");
  if (args.includes("--list")) {
    for (const p of PARTS) console.log(`${p.name.padEnd(14)} ${p.what}`);
    Deno.exit(0);
  }
  const unknown = args.filter((a) => !PARTS.some((p) => p.name === a));
  if (unknown.length) {
    console.error(`unknown part(s): ${unknown.join(", ")}; known: ${PARTS.map((p) => p.name)}`);
    Deno.exit(2);
  }
  const selected = args.length ? PARTS.filter((p) => args.includes(p.name)) : PARTS;
  const startedAt = new Date();
  console.log(
    `bench: ${selected.map((p) => p.name).join(", ")}${QUICK ? " (BENCH_QUICK=1)" : ""}; ` +
      `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, ${startedAt.toISOString()}`,
  );
  const outcomes: Outcome[] = [];
  for (const part of selected) {
    console.log(`\n=== ${part.name}: ${part.what}`);
    const o = await runPart(part);
    outcomes.push(o);
    console.log(
      `=== ${part.name}: ${o.crash ? `CRASHED (${o.crash})` : "done"} in ${o.seconds.toFixed(1)} s`,
    );
    await sleep(1000); // let the previous part's sockets and files settle
  }
  const rows: Row[] = outcomes.flatMap((o) =>
    o.crash
      ? [...o.rows, {
        part: o.part.name,
        metric: `CRASHED: ${o.crash}`,
        value: NaN,
        unit: "",
      }]
      : o.rows
  );
  console.log(`\n=== summary${QUICK ? " (quick mode: sizes below the goals)" : ""}\n`);
  console.log(table(rows));
  const notes = rows.filter((r) => r.note);
  if (notes.length) {
    console.log("\nnotes:");
    for (const r of notes) console.log(`  ${r.part} — ${r.metric}: ${r.note}`);
  }
  const goals = rows.filter((r) => r.met !== undefined);
  console.log(
    `\n${goals.filter((r) => r.met).length}/${goals.length} goals met; ` +
      `${outcomes.filter((o) => o.crash).length} part(s) crashed; ` +
      outcomes.map((o) => `${o.part.name} ${o.seconds.toFixed(0)} s`).join(", "),
  );
  if (JSON_OUT) {
    await Deno.writeTextFile(
      JSON_OUT,
      JSON.stringify(
        { startedAt, quick: QUICK, outcomes: outcomes.map((o) => ({ ...o, part: o.part.name })) },
        null,
        2,
      ),
    );
  }
  Deno.exit(outcomes.some((o) => o.crash) ? 1 : 0);
}
