/**
 * Shared helpers of the benchmarks (see `bench/run.ts`): result rows and the summary table,
 * percentiles, temp dirs and subprocesses that are removed/killed on exit or Ctrl-C, server
 * subprocesses (`bench/servers/*.ts`, which print `LISTENING <url>`); re-exported from
 * `bench/http_load.ts`: CPU pinning, the wrk runner and the HTTP method every wrk-driven part
 * uses (`measureHttp`): servers pinned to core 0 and wrk to core 1, a discarded warm-up per
 * target, interleaved rounds, the best round kept.
 *
 * Every part prints its rows as a table and, last, one `BENCH_ROWS <json>` line for `run.ts`.
 * @module
 */

import { cpuPinning } from "./http_load.ts";

export {
  cpuPinning,
  hasWrk,
  type HttpMeasure,
  type HttpMethod,
  httpMethodFromEnv,
  type HttpTarget,
  measureHttp,
  type Pinning,
  type RawAnswer,
  rawHttp,
  wrk,
  type WrkResult,
} from "./http_load.ts";

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
 * @param flags extra `deno run` flags (e.g. `--cpu-prof`)
 * @param options `pinned`: run the process on the server core of {@link cpuPinning} (`taskset`
 *   execs `deno`, so the pid is the server's)
 */
export async function spawnServer(
  script: string,
  env: Record<string, string>,
  flags: string[] = [],
  options: { pinned?: boolean } = {},
): Promise<ServerProcess> {
  const cmd = [
    ...(options.pinned ? (await cpuPinning()).server : []),
    Deno.execPath(),
    "run",
    ...DENO_FLAGS,
    ...flags,
    script,
  ];
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
