/**
 * Shared helpers of the benchmarks (docs/benchmarks.md, "The rig"): result rows and the summary
 * table, percentiles, temp dirs and subprocesses removed/killed on exit or Ctrl-C, server
 * subprocesses (`bench/servers/*.ts` print `LISTENING <url>`), CPU pinning (servers on core 0,
 * the load on core 1, `taskset -c`), the wrk runner and the HTTP method of the wrk-driven parts
 * ({@link measureHttp}). Every part prints its rows and, last, one `BENCH_ROWS <json>` line.
 * @module
 */

/** Project root (the benchmarks run with it as working directory, so `deno.json` applies). */
export const ROOT_DIR = new URL("../", import.meta.url).pathname;

/** Permissions of the `bench` task, passed on to every subprocess. */
export const DENO_FLAGS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
];

/** A number from the environment variable `name`, else `dflt`. */
export const num = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);

/** One measured number, with the baseline measured in the same run. */
export interface Row {
  part: string;
  metric: string;
  value: number;
  unit: string;
  baseline?: string;
  baselineValue?: number;
  /** value / baselineValue unless the part says otherwise. */
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
}

/**
 * A row in one call: `base` names the baseline and its value (the ratio is value / base unless
 * `ratio` is given; a non-finite ratio is left out), `goal` the goal's text and whether it is met.
 */
export function row(
  part: string,
  metric: string,
  value: number,
  unit: string,
  o: {
    base?: [string, number | undefined];
    ratio?: number;
    goal?: [string, boolean?];
    note?: string;
  } = {},
): Row {
  const r: Row = { part, metric, value, unit };
  if (o.base) [r.baseline, r.baselineValue] = o.base;
  const ratio = o.ratio ?? (r.baselineValue === undefined ? undefined : value / r.baselineValue);
  if (ratio !== undefined && Number.isFinite(ratio)) r.ratio = ratio;
  if (o.goal) [r.goal, r.met] = o.goal;
  if (o.note !== undefined) r.note = o.note;
  return r;
}

/** A row saying that a step failed or ran over its limit (no value, goal missed). */
export const failedRow = (part: string, what: string): Row =>
  row(part, `FAILED or over limit: ${what.slice(0, 200)}`, NaN, "", { goal: ["", false] });

/** Formats a number with thousands separators and sensible precision. */
export function fmt(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return "—";
  if (n !== 0 && Math.abs(n) < 1) {
    return n.toLocaleString("en-US", { maximumSignificantDigits: 3 });
  }
  const digits = Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2;
  return n.toLocaleString("en-US", { maximumFractionDigits: digits });
}

/** The rows as a plain-text table. */
export function table(rows: Row[]): string {
  const head = ["part", "metric", "value", "baseline", "ratio", "goal", "met"];
  const body = rows.map((r) => [
    r.part,
    r.metric,
    `${fmt(r.value)} ${r.unit}`,
    r.baselineValue === undefined ? "" : `${fmt(r.baselineValue)} ${r.unit} (${r.baseline})`,
    r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}×`,
    r.goal ?? "",
    r.met === undefined ? "" : r.met ? "yes" : "NO",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("-|-"), ...body.map(line)].join("\n");
}

/** Prints the part's table and the machine-readable line for `run.ts`. */
export function report(rows: Row[]): void {
  console.log(`\n${table(rows)}`);
  for (const r of rows) if (r.note) console.log(`  note (${r.metric}): ${r.note}`);
  console.log(`BENCH_ROWS ${JSON.stringify(rows)}`);
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, i))];
}

/** p50/p99/max/mean of samples. */
export function stats(samples: ArrayLike<number>) {
  const s = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of s) sum += v;
  return {
    n: s.length,
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    max: s[s.length - 1],
    mean: sum / s.length,
  };
}
/** What {@link stats} returns. */
export type Stats = ReturnType<typeof stats>;

/** Median of the numbers that are not NaN. */
export function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** High-resolution wall clock in ms (comparable across processes on this machine). */
export const wallMs = () => performance.timeOrigin + performance.now();

// ---- cleanup on exit / Ctrl-C ----------------------------------------------------------------

const cleanups = new Set<() => void>();
let hooked = false;

/** Registers a synchronous cleanup run on SIGINT/SIGTERM/unload; returns its remover. */
export function onCleanup(fn: () => void): () => void {
  if (!hooked) {
    hooked = true;
    const runAll = () => {
      for (const f of [...cleanups]) {
        try {
          f();
        } catch { /* best effort */ }
      }
      cleanups.clear();
    };
    globalThis.addEventListener("unload", runAll);
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(sig, () => {
        runAll();
        Deno.exit(130);
      });
    }
  }
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/** A temp dir removed by `remove()` or, at the latest, on exit. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await Deno.makeTempDir({ prefix });
  const drop = onCleanup(() => Deno.removeSync(path, { recursive: true }));
  return {
    path,
    async remove() {
      drop();
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

// ---- CPU pinning -----------------------------------------------------------------------------

/** Where the benchmarks run their processes: command prefixes (empty when unpinned). */
export interface Pinning {
  /** Prefix of server processes, e.g. `["taskset", "-c", "0"]`. */
  server: string[];
  /** Prefix of the load generator, e.g. `["taskset", "-c", "1"]`. */
  load: string[];
  /** One line for the output. */
  describe: string;
}

let pinning: Promise<Pinning> | undefined;

const runs = async (cmd: string, ...args: string[]) => {
  try {
    return (await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output()).success;
  } catch {
    return false;
  }
};

/**
 * The placement (decided once per process): servers on core 0 and the load generator on core 1
 * with `taskset -c`. Unpinned, with a warning, when `taskset` is missing, fewer than two cores
 * are usable, or `BENCH_PIN=0`.
 */
export function cpuPinning(): Promise<Pinning> {
  return pinning ??= (async () => {
    const unpinned = (why: string): Pinning => {
      console.error(
        `warning: benchmark processes NOT pinned to cores (${why}); numbers are noisier`,
      );
      return { server: [], load: [], describe: `unpinned (${why})` };
    };
    if (Deno.env.get("BENCH_PIN") === "0") return unpinned("BENCH_PIN=0");
    if (navigator.hardwareConcurrency < 2) return unpinned(`${navigator.hardwareConcurrency} core`);
    if (!(await runs("taskset", "-c", "0", "true"))) return unpinned("taskset missing or failing");
    if (!(await runs("taskset", "-c", "1", "true"))) return unpinned("core 1 not usable");
    return {
      server: ["taskset", "-c", "0"],
      load: ["taskset", "-c", "1"],
      describe: "servers on core 0, load generator on core 1 (taskset -c)",
    };
  })();
}

/** Pins every thread of this process to the load core (`taskset -a -p`); one line for the output. */
export async function pinLoadGenerator(): Promise<string> {
  const pin = await cpuPinning();
  if (!pin.load.length) return pin.describe;
  const core = pin.load[pin.load.length - 1];
  const out = await new Deno.Command("taskset", {
    args: ["-a", "-cp", core, String(Deno.pid)],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.success) return pin.describe;
  console.error(
    `warning: could not pin the load generator: ${new TextDecoder().decode(out.stderr)}`,
  );
  return `${pin.describe}; this process NOT pinned`;
}

// ---- server subprocesses ---------------------------------------------------------------------

/** A server running in its own `deno` process. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `script` (relative to the root) with `env` added to this process's environment and
 * waits for its `LISTENING <url>` line (60 s at most); later output goes to stderr.
 * @param flags extra `deno run` flags (e.g. `--cpu-prof`)
 * @param options `pinned`: run on the server core of {@link cpuPinning}
 */
export async function spawnServer(
  script: string,
  env: Record<string, string>,
  flags: string[] = [],
  options: { pinned?: boolean } = {},
): Promise<ServerProcess> {
  const pin = options.pinned ? (await cpuPinning()).server : [];
  const cmd = [...pin, Deno.execPath(), "run", ...DENO_FLAGS, ...flags, script];
  const child = new Deno.Command(cmd[0], {
    args: cmd.slice(1),
    cwd: ROOT_DIR,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const drop = onCleanup(() => child.kill("SIGKILL"));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let url: string | undefined;
  const deadline = sleep(60_000).then(() => "timeout" as const);
  while (!url) {
    const r = await Promise.race([reader.read(), deadline]);
    if (r === "timeout" || r.done) {
      child.kill("SIGKILL");
      drop();
      throw new Error(
        `${script} did not print LISTENING (${r === "timeout" ? "timeout" : "exit"})`,
      );
    }
    buf += r.value;
    url = /^LISTENING (\S+)$/m.exec(buf)?.[1];
  }
  (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (r.done) break;
      Deno.stderr.writeSync(new TextEncoder().encode(r.value.replace(/^/gm, `  [${script}] `)));
    }
  })();
  return {
    url,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      if (!(await Promise.race([child.status.then(() => true), sleep(5000)]))) {
        child.kill("SIGKILL");
      }
      await child.status;
      drop();
    },
  };
}

/** `--cpu-prof` flags when `BENCH_CPU_PROF=<dir>` is set (the parts then print a summary). */
export const profFlags = (): string[] => {
  const dir = Deno.env.get("BENCH_CPU_PROF");
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
};
