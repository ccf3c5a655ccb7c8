/**
 * `deno task bench [-- part …]` (README "Benchmarks", docs/benchmarks.md): runs each part of
 * {@link PARTS} (default all, in order; `--list` names them) in its own `deno run` subprocess from
 * the project root, collects the `BENCH_ROWS <json>` line each prints last and prints one summary
 * table. Exit status non-zero only when a part crashed (non-zero exit, no rows, past
 * `BENCH_PART_TIMEOUT_S`, default 900); a missed goal is a row. `BENCH_QUICK=1`: small sizes (a
 * smoke test; a part's own `BENCH_*` set by the caller wins); `BENCH_JSON=<file>` writes the rows.
 * @module
 */
import { DENO_FLAGS, onCleanup, ROOT_DIR, type Row, row, sleep, table } from "./common.ts";

/** A part: its name, what it measures (for `--list`), `BENCH_*` defaults in quick mode. */
interface Part {
  name: string;
  what: string;
  quick: string;
}

/**
 * The parts in order (docs/benchmarks.md, "The parts"), each running `bench/<name>.ts`
 * (`auth_micro` under `deno bench`): a line `name  what`, then its quick-mode settings indented.
 */
const PARTS: Part[] = `
http_auth      issue 2: GET /v1/console/status req/s, API key and bearer, vs bare same bytes
  BENCH_WRK_SECONDS=2 BENCH_ROUNDS=1 BENCH_WARMUP_SECONDS=1
auth_micro     issue 2 diagnostics: in-process deno bench of the auth pieces (no goal)
event_append   issue 3a: durable EventLog.append events/s vs one atomic per event
  BENCH_EVENTS=5000
event_history  issue 3b: history page of 100 out of 1,000,000 events vs bare kv.list
  BENCH_HISTORY_EVENTS=50000 BENCH_SAMPLES=300
stream_fanout  issue 3c: SSE append→receive p99, 100 and 1,000 streams, vs bare SSE fan-out
  BENCH_CLIENTS=100 BENCH_STREAM_SECONDS=3
ingest_http    issue 5: POST /v1/forecasts batches of 500 over HTTP, forecasts/s, vs bare servers
  BENCH_INGEST_LOCATIONS=5000
day_10k        issue 6: 10,000-location day, registration → … → stored receipt (HTTPS)
  BENCH_DAY_LOCATIONS=1000
replicas       issue 22: two processes on one KV file, single writes, batches, forecasts: 5xx
  BENCH_REPLICAS_SINGLES=500 BENCH_REPLICAS_BATCHES=2
mixed          issue 22: 32 mixed clients + orchestrator passes on 10,000 locations, p99 per kind
  BENCH_MIXED_N=2000 BENCH_MIXED_SECONDS=10 BENCH_MIXED_WARMUP_S=2
intraday       issue 21: intraday pass at 100,000 and 1,000,000; batch → files with the tick
  BENCH_INTRADAY_SIZES=20000 BENCH_INTRADAY_ROUNDS=2 BENCH_INTRADAY_TICK_ROUNDS=2
settlement     issue 27: MSCONS import of 10,000 locations; a day's settlement at 1,000,000
  BENCH_SETTLE_N=50000 BENCH_SETTLE_METERED=5000 BENCH_SETTLE_MSCONS_N=1000
million        1,000,000 locations: forecast+aggregate, registration, overview, probes, 10 days
  BENCH_MILLION_N=20000 BENCH_MILLION_SMALL_N=5000 BENCH_MILLION_CUSTOMERS=2000
cim_validation issue 29: one CIM schedule checked against ENTSO-E's XSD, vs rendering it
  BENCH_CIM_ROUNDS=50
kv_connect     issue 28: one-day pass at 100,000 and 1,000,000, local file vs KV Connect
  BENCH_KVC_SIZES=20000
weather        issue 33: 8 weeks + 2 days of one weather point as known at T; store one answer
  BENCH_WEATHER_DAYS=20 BENCH_WEATHER_EVERY_H=6 BENCH_WEATHER_ROUNDS=10
learned        issue 33: daily refit and forecast of 10,000 metered locations; the profile pass beside
  BENCH_LEARNED_N=500 BENCH_LEARNED_POINTS=10 BENCH_LEARNED_PROFILE_N=5000
`.split(/\n(?! )/).filter(Boolean).map((p) => {
  const [, name, what, quick = ""] = /^(\S+) +(.+?)(?:\n +(.+))?$/.exec(p)!;
  return { name, what, quick };
});

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
  type Bench = {
    name: string;
    group: string | null;
    baseline: boolean;
    results: { ok?: { avg: number } }[];
  };
  const benches = (JSON.parse(json) as { benches: Bench[] }).benches.filter((b) =>
    b.results[0]?.ok
  );
  const us = (b: Bench) => b.results[0].ok!.avg / 1000;
  return benches.map((b) => {
    const ref = benches.find((x) => x.baseline && x.group === b.group && x !== b);
    return row("2 auth micro", `${b.group}: ${b.name} (mean per iteration)`, us(b), "µs", {
      base: ref ? [ref.name, us(ref)] : undefined,
    });
  });
}

/** Copies a child's output to `sink` line by line with a prefix (not the rows line); all of it. */
async function pump(
  stream: ReadableStream<Uint8Array<ArrayBuffer>>,
  prefix: string,
  sink: typeof Deno.stdout,
) {
  let all = "", partial = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    all += chunk;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop()!;
    const shown = lines.filter((l) => !l.startsWith("BENCH_ROWS ")).map((l) => `${prefix}${l}\n`);
    if (shown.length) await sink.write(new TextEncoder().encode(shown.join("")));
  }
  if (partial) await sink.write(new TextEncoder().encode(`${prefix}${partial}\n`));
  return all;
}

/** Runs one part in its own process, bounded by the time limit. */
async function runPart(part: Part): Promise<Outcome> {
  const quick = QUICK && part.quick ? part.quick.split(" ").map((kv) => kv.split("=")) : [];
  const env = Object.fromEntries(quick.filter(([k]) => Deno.env.get(k) === undefined));
  const bench = part.name === "auth_micro";
  const script = `bench/${part.name}.ts`;
  const args = bench ? ["bench", ...DENO_FLAGS, "--json", script] : ["run", ...DENO_FLAGS, script];
  const t0 = performance.now();
  const io = { stdin: "null", stdout: "piped", stderr: "piped" } as const;
  const child = new Deno.Command(Deno.execPath(), { args, cwd: ROOT_DIR, env, ...io }).spawn();
  const kill = (sig: Deno.Signal) => {
    try {
      child.kill(sig);
    } catch { /* gone */ }
  };
  const drop = onCleanup(() => kill("SIGKILL"));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    kill("SIGTERM");
    setTimeout(() => kill("SIGKILL"), 5_000);
  }, PART_TIMEOUT_MS);
  const prefix = `[${part.name}] `;
  const [out, , status] = await Promise.all([
    bench ? new Response(child.stdout).text() : pump(child.stdout, prefix, Deno.stdout),
    pump(child.stderr, prefix, Deno.stderr),
    child.status,
  ]);
  clearTimeout(timer);
  drop();
  const outcome: Outcome = { part, rows: [], seconds: (performance.now() - t0) / 1000 };
  try {
    const line = out.split("\n").reverse().find((l) => l.startsWith("BENCH_ROWS "));
    outcome.rows = bench
      ? benchRows(out)
      : line
      ? JSON.parse(line.slice("BENCH_ROWS ".length))
      : [];
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
  const rows = outcomes.flatMap((o) =>
    o.crash ? [...o.rows, row(o.part.name, `CRASHED: ${o.crash}`, NaN, "")] : o.rows
  );
  console.log(`\n=== summary${QUICK ? " (quick mode: sizes below the goals)" : ""}\n`);
  console.log(table(rows));
  const notes = rows.filter((r) => r.note);
  if (notes.length) {
    console.log(`\nnotes:\n${notes.map((r) => `  ${r.part} — ${r.metric}: ${r.note}`).join("\n")}`);
  }
  const goals = rows.filter((r) => r.met !== undefined);
  console.log(
    `\n${goals.filter((r) => r.met).length}/${goals.length} goals met; ` +
      `${outcomes.filter((o) => o.crash).length} part(s) crashed; ` +
      outcomes.map((o) => `${o.part.name} ${o.seconds.toFixed(0)} s`).join(", "),
  );
  if (JSON_OUT) {
    const parts = outcomes.map((o) => ({ ...o, part: o.part.name }));
    await Deno.writeTextFile(
      JSON_OUT,
      JSON.stringify({ startedAt, quick: QUICK, outcomes: parts }, null, 2),
    );
  }
  Deno.exit(outcomes.some((o) => o.crash) ? 1 : 0);
}
