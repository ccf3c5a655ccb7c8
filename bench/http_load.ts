/**
 * The HTTP load side of the benchmarks (re-exported by `bench/common.ts`): CPU pinning of
 * servers and load generator ({@link cpuPinning}), the wrk runner ({@link wrk}), a raw HTTP/1.1
 * request for comparing answers byte for byte ({@link rawHttp}), and the method every wrk-driven
 * part measures with ({@link measureHttp}): pinned, warmed up, interleaved, best round kept.
 * @module
 */

// ---- CPU pinning -----------------------------------------------------------------------------

/** Where the HTTP benchmarks run their processes: command prefixes (empty when unpinned). */
export interface Pinning {
  /** Prefix of server processes, e.g. `["taskset", "-c", "0"]`. */
  server: string[];
  /** Prefix of the load generator, e.g. `["taskset", "-c", "1"]`. */
  load: string[];
  /** One line for the output, e.g. `servers on core 0, wrk on core 1 (taskset -c)`. */
  describe: string;
}

let pinning: Promise<Pinning> | undefined;

const runs = async (cmd: string, ...args: string[]) => {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
};

/**
 * The placement of the HTTP benchmarks (decided once per process): servers on core 0 and the
 * load generator on core 1 with `taskset -c`, so neither steals the other's core. Falls back to
 * unpinned, with a warning on stderr, when `taskset` is missing, fewer than two cores are
 * usable, or `BENCH_PIN=0`.
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
    if (navigator.hardwareConcurrency < 2) {
      return unpinned(`${navigator.hardwareConcurrency} core`);
    }
    if (!(await runs("taskset", "-c", "0", "true"))) return unpinned("taskset missing or failing");
    if (!(await runs("taskset", "-c", "1", "true"))) return unpinned("core 1 not usable");
    return {
      server: ["taskset", "-c", "0"],
      load: ["taskset", "-c", "1"],
      describe: "servers on core 0, wrk on core 1 (taskset -c)",
    };
  })();
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

/**
 * Runs `wrk --latency` against a loopback URL (bounded by `seconds`); with `pinned`, on the load
 * core of {@link cpuPinning}.
 */
export async function wrk(
  url: string,
  o: {
    threads: number;
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    /** A wrk Lua script file (e.g. one that sets `wrk.method = "POST"`). */
    script?: string;
    /** Run wrk on the load core of {@link cpuPinning}. */
    pinned?: boolean;
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
  const cmd = [...(o.pinned ? (await cpuPinning()).load : []), "wrk", ...args, url];
  const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), stdout: "piped" }).output();
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

// ---- the HTTP method -------------------------------------------------------------------------

/** One answer as it came over the wire: status line, headers in order (as sent), body. */
export interface RawAnswer {
  status: string;
  headers: [string, string][];
  body: string;
}

/**
 * Sends one HTTP/1.1 request (`connection: close`) to a loopback URL and returns the answer
 * unparsed by `fetch`, so header order and spelling can be compared (`fetch` sorts headers).
 */
export async function rawHttp(
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<RawAnswer> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const head = Object.entries({ host: u.host, ...headers, connection: "close" })
    .map(([k, v]) => `${k}: ${v}\r\n`).join("");
  const w = conn.writable.getWriter();
  await w.write(
    new TextEncoder().encode(`${method} ${u.pathname}${u.search} HTTP/1.1\r\n${head}\r\n`),
  );
  w.releaseLock();
  const text = await new Response(conn.readable).text(); // the server closes after answering
  const cut = text.indexOf("\r\n\r\n");
  const [status, ...lines] = text.slice(0, cut).split("\r\n");
  return {
    status,
    headers: lines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
    body: text.slice(cut + 4),
  };
}

/** One target of {@link measureHttp}. */
export interface HttpTarget {
  url: string;
  headers?: Record<string, string>;
  /** wrk Lua script (e.g. `wrk.method = "POST"`). */
  script?: string;
  /** The serving process, to report its CPU share of each run (a noise check). */
  pid?: number;
}

/** Settings of {@link measureHttp}. */
export interface HttpMethod {
  /** Measured seconds per run (`BENCH_WRK_SECONDS`, default 5). */
  seconds: number;
  /** Interleaved rounds; each target's best is kept (`BENCH_ROUNDS`, default 3). */
  rounds: number;
  /** Discarded wrk run per target before the rounds (`BENCH_WARMUP_SECONDS`, default 2). */
  warmupSeconds: number;
  /** wrk connections (`BENCH_CONNECTIONS`, default 32); one wrk thread. */
  connections: number;
}

/** {@link HttpMethod} from the environment, with the defaults named there. */
export function httpMethodFromEnv(): HttpMethod {
  const n = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);
  return {
    seconds: n("BENCH_WRK_SECONDS", 5),
    rounds: n("BENCH_ROUNDS", 3),
    warmupSeconds: n("BENCH_WARMUP_SECONDS", 2),
    connections: n("BENCH_CONNECTIONS", 32),
  };
}

/** A target's best round, and every round's req/s in order. */
export interface HttpMeasure {
  best: WrkResult;
  rounds: number[];
  /** The server's CPU share (0–1 of one core) in the best round; NaN when unknown. */
  bestCpu: number;
}

/**
 * CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat` (read with
 * `cat`: Deno asks for `--allow-all` to read `/proc` itself); NaN when unreadable.
 */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  try {
    const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stderr: "null" })
      .output();
    const stat = new TextDecoder().decode(out.stdout);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

/** Below this CPU share a pinned, saturated server was starved (or its load generator was). */
const BUSY = 0.9;

/**
 * The benchmarks' HTTP method. wrk (one thread) runs on the load core of {@link cpuPinning} —
 * start the servers with `spawnServer(…, { pinned: true })` so they share the other core. Each
 * target first gets `warmupSeconds` of load that is discarded (JIT, caches, connection setup),
 * then `rounds` rounds run every target once in the order given (a, b, c, a, b, c, …), so a slow
 * spell on the machine hits all targets alike rather than one; each target's best round is kept.
 * With a target's `pid`, each run also reports the server's CPU share of its core: a saturated
 * server is near 100%, so a share below 90% means another process took its core or wrk's, and
 * a warning is printed. Prints one line per run; throws on any non-2xx answer or socket error.
 */
export async function measureHttp(
  targets: Record<string, HttpTarget>,
  m: HttpMethod,
): Promise<Record<string, HttpMeasure>> {
  const run = (t: HttpTarget, seconds: number) =>
    wrk(t.url, { ...t, threads: 1, connections: m.connections, seconds, pinned: true });
  if (m.warmupSeconds > 0) {
    for (const t of Object.values(targets)) {
      await run(t, m.warmupSeconds);
    }
  }
  const out: Record<string, HttpMeasure> = {};
  const width = Math.max(...Object.keys(targets).map((k) => k.length));
  for (let round = 1; round <= m.rounds; round++) {
    for (const [name, t] of Object.entries(targets)) {
      const cpu0 = await cpuSeconds(t.pid);
      const t0 = performance.now();
      const r = await run(t, m.seconds);
      const cpu = (await cpuSeconds(t.pid) - cpu0) / ((performance.now() - t0) / 1000);
      if (r.non2xx || r.socketErrors) {
        throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors`);
      }
      console.log(
        `round ${round} ${name.padEnd(width)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${
          r.p50Ms.toFixed(2)
        } ms  p99 ${r.p99Ms.toFixed(2)} ms${
          Number.isNaN(cpu) ? "" : `  server cpu ${(cpu * 100).toFixed(0)}%`
        }${cpu < BUSY ? "  (starved: other load on the machine?)" : ""}`,
      );
      const o = out[name] ??= { best: r, rounds: [], bestCpu: cpu };
      o.rounds.push(r.rps);
      if (r.rps > o.best.rps) [o.best, o.bestCpu] = [r, cpu];
    }
  }
  const starved = Object.entries(out).filter(([, o]) => o.bestCpu < BUSY).map(([k]) => k);
  if (starved.length) {
    console.error(`warning: best round of ${starved.join(", ")} ran with the server starved`);
  }
  return out;
}
