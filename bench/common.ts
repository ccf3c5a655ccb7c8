/**
 * Shared helpers of the benchmarks (docs/benchmarks.md, "The rig"): rows and the table,
 * statistics, clean-up on exit, server processes and CPU pinning.
 * @module
 */

/** Project root (the benchmarks run with it as working directory, so `deno.json` applies). */
export const ROOT_DIR = new URL("../", import.meta.url).pathname;
/** Permissions of the `bench` task, passed on to every subprocess. */
export const DENO_FLAGS =
  "--allow-net --allow-env --allow-read --allow-write --allow-run --allow-sys"
    .split(" ");
/** A number from the environment variable `name`, else `dflt`. */
export const num = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** High-resolution wall clock in ms (comparable across processes on this machine). */
export const wallMs = () => performance.timeOrigin + performance.now();

/** One measured number, with the baseline measured in the same run (`ratio` = value / baseline). */
export interface Row {
  part: string;
  metric: string;
  value: number;
  unit: string;
  baseline?: string;
  baselineValue?: number;
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
}
/** What {@link row} takes besides the value: baseline name and value, goal text and met, note. */
type RowOpts = { base?: [string, number | undefined]; goal?: [string, boolean?]; note?: string };

/** A row in one call; a ratio that is not finite is left out. */
export function row(
  part: string,
  metric: string,
  value: number,
  unit: string,
  o: RowOpts = {},
): Row {
  const r: Row = { part, metric, value, unit };
  if (o.base) [r.baseline, r.baselineValue] = o.base;
  const ratio = value / (r.baselineValue ?? NaN);
  if (Number.isFinite(ratio)) r.ratio = ratio;
  if (o.goal) [r.goal, r.met] = o.goal;
  if (o.note !== undefined) r.note = o.note;
  return r;
}

/** A row saying that a step failed or ran over its limit (no value, goal missed). */
export const failedRow = (part: string, what: string): Row =>
  row(part, `FAILED or over limit: ${what.slice(0, 200)}`, NaN, "", { goal: ["", false] });

/** A number with thousands separators and sensible precision; `—` for none. */
export function fmt(n: number | null | undefined): string {
  if (n == null || Number.isNaN(n)) return "—"; // NaN arrives as null through JSON
  const o = n !== 0 && Math.abs(n) < 1
    ? { maximumSignificantDigits: 3 }
    : { maximumFractionDigits: Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2 };
  return n.toLocaleString("en-US", o);
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

/** Prints the part's table, its notes and the machine-readable line for `run.ts`. */
export function report(rows: Row[]): void {
  console.log(`\n${table(rows)}`);
  for (const r of rows) if (r.note) console.log(`  note (${r.metric}): ${r.note}`);
  console.log(`BENCH_ROWS ${JSON.stringify(rows)}`);
}

/** p50/p99/max/mean of samples (nearest rank). */
export function stats(samples: ArrayLike<number>) {
  const s = Float64Array.from(samples).sort();
  const at = (p: number) =>
    s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  const mean = s.reduce((a, v) => a + v, 0) / s.length;
  return { n: s.length, p50: at(50) ?? NaN, p99: at(99) ?? NaN, max: s[s.length - 1], mean };
}
/** What {@link stats} returns. */
export type Stats = ReturnType<typeof stats>;

/** Median of the numbers that are not NaN. */
export function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

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
      Deno.addSignalListener(sig, () => (runAll(), Deno.exit(130)));
    }
  }
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/** A temp dir removed by `remove()` or, at the latest, on exit. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await Deno.makeTempDir({ prefix });
  const drop = onCleanup(() => Deno.removeSync(path, { recursive: true }));
  return { path, remove: () => (drop(), Deno.remove(path, { recursive: true }).catch(() => {})) };
}

/** Where the processes run: command prefixes (empty when unpinned) and one line for the output. */
export interface Pinning {
  server: string[];
  load: string[];
  describe: string;
}
let pinning: Promise<Pinning> | undefined;

/**
 * The placement, decided once: servers on core 0, the load generator on core 1 (`taskset -c`);
 * unpinned with a warning without `taskset`, with one core, or with `BENCH_PIN=0`.
 */
export function cpuPinning(): Promise<Pinning> {
  const io = { stdout: "null", stderr: "null" } as const;
  const runs = (core: string) =>
    // a missing taskset: spawning throws, turned into a rejection
    Promise.try(() => new Deno.Command("taskset", { args: ["-c", core, "true"], ...io }).output())
      .then((o) => o.success, () => false);
  return pinning ??= (async () => {
    const why = Deno.env.get("BENCH_PIN") === "0"
      ? "BENCH_PIN=0"
      : navigator.hardwareConcurrency < 2
      ? "one core"
      : !(await runs("0")) || !(await runs("1"))
      ? "taskset missing or core 1 not usable"
      : undefined;
    if (!why) {
      const describe = "servers on core 0, load generator on core 1 (taskset -c)";
      return { server: ["taskset", "-c", "0"], load: ["taskset", "-c", "1"], describe };
    }
    console.error(`warning: benchmark processes NOT pinned to cores (${why}); numbers are noisier`);
    return { server: [], load: [], describe: `unpinned (${why})` };
  })();
}

/** Pins every thread of this process to the load core (`taskset -a -p`); one line for the output. */
export async function pinLoadGenerator(): Promise<string> {
  const pin = await cpuPinning();
  if (!pin.load.length) return pin.describe;
  const args = ["-a", "-cp", pin.load[2], String(Deno.pid)];
  const out = await new Deno.Command("taskset", { args, stdout: "null", stderr: "null" }).output();
  if (!out.success) console.error("warning: could not pin the load generator");
  return out.success ? pin.describe : `${pin.describe}; this process NOT pinned`;
}

/** A server running in its own `deno` process; `stop()` sends SIGTERM, SIGKILL after 5 s. */
export interface ServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `script` (relative to the root) with `env` added and waits for its `LISTENING <url>`
 * (60 s at most); later output goes to stderr. `flags`: extra `deno run` flags; `pinned`: on the
 * server core.
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
    stdout: "piped",
  })
    .spawn();
  const drop = onCleanup(() => child.kill("SIGKILL"));
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let [buf, url] = ["", undefined as string | undefined];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ done: true; value: "" }>((r) =>
    timer = setTimeout(() => r({ done: true, value: "" }), 60_000)
  );
  while (!url) {
    const r = await Promise.race([lines.read(), timeout]);
    if (r.done) {
      child.kill("SIGKILL");
      throw new Error(`${script} did not print LISTENING`);
    }
    url = /^LISTENING (\S+)$/m.exec(buf += r.value)?.[1];
  }
  clearTimeout(timer); // a pending timer would keep this process alive for a minute
  (async () => {
    for (let r; !(r = await lines.read().catch(() => ({ done: true as const }))).done;) {
      Deno.stderr.writeSync(new TextEncoder().encode(r.value!.replace(/^/gm, `  [${script}] `)));
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const grace = setTimeout(() => child.kill("SIGKILL"), 5000);
    await child.status;
    clearTimeout(grace);
    drop();
  };
  return { url, pid: child.pid, stop };
}

/** `--cpu-prof` flags when `BENCH_CPU_PROF=<dir>` is set (the parts then print a summary). */
export const profFlags = (): string[] => {
  const dir = Deno.env.get("BENCH_CPU_PROF");
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
};
