/**
 * Shared helpers of the benchmarks (see `bench/run.ts`): result rows and the summary table,
 * percentiles, temp dirs and subprocesses that are removed/killed on exit or Ctrl-C, server
 * subprocesses (`bench/servers/*.ts`, which print `LISTENING <url>`), and the wrk runner.
 *
 * Every part prints its rows as a table and, last, one `BENCH_ROWS <json>` line for `run.ts`.
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
 * waits for its `LISTENING <url>` line (60 s at most). Later output is forwarded to stderr.
 */
export async function spawnServer(
  script: string,
  env: Record<string, string>,
  flags: string[] = [],
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...DENO_FLAGS, ...flags, script],
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), 60_000);
  });
  while (!url) {
    const r = await Promise.race([reader.read(), timeout]);
    if (r === "timeout" || r.done) {
      clearTimeout(timer);
      child.kill("SIGKILL");
      drop();
      throw new Error(
        `${script} did not print LISTENING (${r === "timeout" ? "timeout" : "exit"})`,
      );
    }
    buf += r.value;
    const m = /^LISTENING (\S+)$/m.exec(buf);
    if (m) url = m[1];
  }
  clearTimeout(timer);
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
      const exited = await Promise.race([child.status.then(() => true), sleep(5000)]);
      if (!exited) child.kill("SIGKILL");
      await child.status;
      drop();
    },
  };
}

// ---- wrk -------------------------------------------------------------------------------------

/** What one wrk run measured. */
export interface WrkResult {
  rps: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  p50Ms: number;
  p99Ms: number;
}

/** True when `wrk` is on PATH. */
export async function hasWrk(): Promise<boolean> {
  try {
    await new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

const toMs = (v: string, unit: string) =>
  Number(v) * (unit === "us" ? 1e-3 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 1);

/** Runs `wrk --latency` against a loopback URL (bounded by `seconds`). */
export async function wrk(
  url: string,
  o: {
    threads: number;
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    /** A wrk Lua script file (e.g. one that sets `wrk.method = "POST"`). */
    script?: string;
  },
): Promise<WrkResult> {
  if (!/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])[:/]/.test(url)) {
    throw new Error(`refusing a non-loopback target: ${url}`);
  }
  const args = [
    `-t${o.threads}`,
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    "--timeout",
    "5s",
    "--latency",
  ];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (o.script) args.push("-s", o.script);
  const out = await new Deno.Command("wrk", { args: [...args, url], stdout: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const lat = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(text);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    requests: num(/(\d+) requests in/),
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    p50Ms: lat("50"),
    p99Ms: lat("99"),
  };
}
