/**
 * The load side of the benchmarks (docs/benchmarks.md, "The rig"): bounded requests and batch
 * senders, a run budget, open-loop probes, the console's live stream as a browser reads it, a
 * sampler of another process's RSS, raw HTTP/1.1 answers, the wrk runner and the HTTP method of
 * the wrk-driven parts ({@link measureHttp}: pinned, warmed up, interleaved, best round kept).
 * @module
 */
import { cpuPinning, sleep } from "./common.ts";

/** A wall-clock budget for the whole run. */
export class Budget {
  readonly end: number;
  constructor(seconds: number) {
    this.end = performance.now() + seconds * 1000;
  }
  /** Milliseconds left. */
  left(): number {
    return Math.max(0, this.end - performance.now());
  }
  /** A limit for one step: `ms`, but never past the budget less `reserveMs`. */
  limit(ms: number, reserveMs = 0): number {
    return Math.max(1, Math.min(ms, this.left() - reserveMs));
  }
}

/** Thrown when a step did not finish within its limit. */
export class OverLimit extends Error {
  constructor(what: string, ms: number) {
    super(
      `${what}: not finished within ${
        ms < 10_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`
      }`,
    );
    this.name = "OverLimit";
  }
}

/** One HTTP request bounded by `limitMs`; throws on a non-2xx answer. Returns the text and ms. */
export async function call(
  url: string,
  init: RequestInit & { limitMs?: number; what?: string; client?: Deno.HttpClient },
): Promise<{ text: string; ms: number; status: number }> {
  const t0 = performance.now();
  const limitMs = init.limitMs ?? 60_000;
  const what = init.what ?? `${init.method ?? "GET"} ${new URL(url).pathname}`;
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${what} → ${res.status}: ${text.slice(0, 400)}`);
    }
    return { text, ms: performance.now() - t0, status: res.status };
  } catch (err) {
    if ((err as Error).name === "TimeoutError") throw new OverLimit(what, limitMs);
    throw err;
  }
}

/**
 * Sends every body to `url` (JSON, `method`, default `POST`) with `concurrency` clients; throws
 * on a non-200; past `limitMs` (default 300 s) aborts what is in flight and throws
 * {@link OverLimit}. Returns seconds.
 */
export async function sendAll(
  url: string,
  bodies: string[],
  o: { headers?: Record<string, string>; concurrency?: number; method?: string; limitMs?: number },
): Promise<number> {
  const { method = "POST", limitMs = 300_000 } = o;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), limitMs);
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: o.concurrency ?? 4 }, async () => {
      while (next < bodies.length && !ac.signal.aborted) {
        const res = await fetch(url, {
          method,
          headers: { "content-type": "application/json", ...o.headers },
          body: bodies[next++],
          signal: ac.signal,
        });
        const text = await res.text();
        if (res.status !== 200) {
          ac.abort();
          throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
        }
      }
    }));
  } catch (err) {
    if (ac.signal.aborted && (err as Error).name === "AbortError") {
      throw new OverLimit(`${method} ${new URL(url).pathname} (${bodies.length})`, limitMs);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
  if (next < bodies.length) throw new OverLimit(`${method} ${url}`, limitMs);
  return (performance.now() - t0) / 1000;
}

/**
 * Open-loop probe: one request every `every` ms whether or not the previous ones answered (a
 * stalled server shows as many slow answers), each bounded by `timeoutMs` (counted with that
 * latency). Latency from send to the end of the body.
 */
export class Probe {
  readonly latencies: number[] = [];
  failures = 0;
  sent = 0;
  #timer?: ReturnType<typeof setTimeout>;
  #pending = new Set<Promise<void>>();
  #running = false;

  constructor(
    readonly url: string,
    readonly o: { every: number; headers?: Record<string, string>; method?: string },
    readonly timeoutMs = 10_000,
  ) {}

  /** Starts sending. */
  start(): this {
    this.#running = true;
    const t0 = performance.now();
    const tick = () => {
      if (!this.#running) return;
      this.sent++;
      const t = performance.now();
      const p = fetch(this.url, {
        method: this.o.method ?? "GET",
        headers: this.o.headers,
        signal: AbortSignal.timeout(this.timeoutMs),
      }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) this.failures++;
        this.latencies.push(performance.now() - t);
      }).catch(() => {
        this.failures++;
        this.latencies.push(this.timeoutMs);
      }).finally(() => this.#pending.delete(p));
      this.#pending.add(p);
      this.#timer = setTimeout(
        tick,
        Math.max(0, t0 + this.sent * this.o.every - performance.now()),
      );
    };
    tick();
    return this;
  }

  /** Stops sending and waits for the answers still due. */
  async stop(): Promise<this> {
    this.#running = false;
    clearTimeout(this.#timer);
    await Promise.all([...this.#pending]);
    return this;
  }
}

/** The console's live stream, as a browser would read it: every event's kind and arrival. */
export interface ConsoleStream {
  events: { kind: string; at: number }[];
  close(): Promise<void>;
}

/** Exchanges `processKey` for a stream token and opens `GET /v1/console/events/stream`. */
export async function openConsoleStream(base: string, processKey: string): Promise<ConsoleStream> {
  const { text } = await call(`${base}/v1/console/stream-token`, {
    method: "POST",
    headers: { "x-api-key": processKey },
  });
  const token = (JSON.parse(text) as { token: string }).token;
  const ac = new AbortController();
  const res = await fetch(`${base}/v1/console/events/stream?token=${encodeURIComponent(token)}`, {
    headers: { accept: "text/event-stream" },
    signal: ac.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`event stream answered ${res.status}`);
  const events: ConsoleStream["events"] = [];
  const loop = (async () => {
    let buf = "";
    try {
      for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
        const at = performance.now();
        buf += chunk;
        const end = buf.lastIndexOf("\n\n");
        if (end < 0) continue;
        for (const msg of buf.slice(0, end).split("\n\n")) {
          const m = /^event: (.+)$/m.exec(msg);
          if (m) events.push({ kind: m[1], at });
        }
        buf = buf.slice(end + 2);
      }
    } catch { /* closed by us */ }
  })();
  return {
    events,
    async close() {
      ac.abort();
      await loop;
    },
  };
}

/**
 * Samples `VmRSS` and `VmHWM` of `pid` every `everyMs` from `/proc/<pid>/status` (through a `sh`
 * loop: Deno asks for `--allow-all` to read `/proc` itself). Bytes.
 */
export class RssSampler {
  /** Latest VmRSS. */
  rss = 0;
  /** Latest VmHWM. */
  hwm = 0;
  /** Largest VmRSS since the last {@link mark}. */
  peak = 0;
  samples = 0;
  #child: Deno.ChildProcess;
  #done: Promise<void>;

  constructor(readonly pid: number, everyMs = 20) {
    const script = `while grep -E '^(VmRSS|VmHWM):' /proc/${pid}/status 2>/dev/null; do ` +
      `echo .; sleep ${everyMs / 1000}; done`;
    const child = new Deno.Command("sh", {
      args: ["-c", script],
      stdout: "piped",
      stderr: "null",
      stdin: "null",
    })
      .spawn();
    this.#child = child;
    this.#done = (async () => {
      let buf = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        const lines = (buf + chunk).split("\n");
        buf = lines.pop()!;
        for (const line of lines) {
          const m = /^(VmRSS|VmHWM):\s+(\d+) kB/.exec(line);
          if (!m) {
            if (line === ".") this.samples++;
          } else if (m[1] === "VmHWM") this.hwm = Number(m[2]) * 1024;
          else {
            this.rss = Number(m[2]) * 1024;
            this.peak = Math.max(this.peak, this.rss);
          }
        }
      }
    })();
  }

  /** Waits for the next sample (at most 2 s). */
  async fresh(): Promise<void> {
    const n = this.samples;
    const until = performance.now() + 2000;
    while (this.samples < n + 2 && performance.now() < until) await sleep(10);
  }

  /** Starts a new peak window at the current RSS; resets the kernel's VmHWM where allowed. */
  async mark(): Promise<boolean> {
    const out = await new Deno.Command("sh", {
      args: ["-c", `echo 5 > /proc/${this.pid}/clear_refs`],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => ({ success: false }));
    await this.fresh();
    this.peak = this.rss;
    return out.success;
  }

  /** Stops sampling. */
  async stop(): Promise<void> {
    try {
      this.#child.kill("SIGTERM");
    } catch { /* gone */ }
    await this.#child.status;
    await this.#done.catch(() => {});
  }
}

// ---- raw answers and wrk ---------------------------------------------------------------------

/** One answer as it came over the wire: status line, headers in order (as sent), body. */
export interface RawAnswer {
  status: string;
  headers: [string, string][];
  body: string;
}

/** One HTTP/1.1 request (`connection: close`), the answer unparsed by `fetch` (which sorts headers). */
export async function rawHttp(
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<RawAnswer> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const head = Object.entries({ host: u.host, ...headers, connection: "close" }).map(([k, v]) =>
    `${k}: ${v}\r\n`
  )
    .join("");
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
export const hasWrk = () => runsOk("wrk", "-v");
const runsOk = (cmd: string, ...args: string[]) =>
  new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output().then(
    () => true,
    () => false,
  );

const toMs = (v: string, unit: string) =>
  Number(v) * (unit === "us" ? 1e-3 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 1);

/** Runs `wrk --latency` (one thread) against a loopback URL on the load core. */
export async function wrk(
  url: string,
  o: { connections: number; seconds: number; headers?: Record<string, string>; script?: string },
): Promise<WrkResult> {
  if (!/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])[:/]/.test(url)) {
    throw new Error(`refusing a non-loopback target: ${url}`);
  }
  const args = ["-t1", `-c${o.connections}`, `-d${o.seconds}s`, "--timeout", "5s", "--latency"];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (o.script) args.push("-s", o.script);
  const cmd = [...(await cpuPinning()).load, "wrk", ...args, url];
  const text = new TextDecoder().decode(
    (await new Deno.Command(cmd[0], { args: cmd.slice(1), stdout: "piped" }).output()).stdout,
  );
  const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const lat = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(text);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: n(/Requests\/sec:\s+([\d.]+)/),
    requests: n(/(\d+) requests in/),
    non2xx: n(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    p50Ms: lat("50"),
    p99Ms: lat("99"),
  };
}

/** One target of {@link measureHttp}; `pid` of the serving process reports its CPU share. */
export interface HttpTarget {
  url: string;
  headers?: Record<string, string>;
  /** wrk Lua script (e.g. `wrk.method = "POST"`). */
  script?: string;
  pid?: number;
}

/** Settings of {@link measureHttp} (env `BENCH_WRK_SECONDS` 5, `BENCH_ROUNDS` 3, `BENCH_WARMUP_SECONDS` 2, `BENCH_CONNECTIONS` 32). */
export interface HttpMethod {
  seconds: number;
  rounds: number;
  warmupSeconds: number;
  connections: number;
}

/** {@link HttpMethod} from the environment. */
export function httpMethodFromEnv(): HttpMethod {
  const n = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);
  return {
    seconds: n("BENCH_WRK_SECONDS", 5),
    rounds: n("BENCH_ROUNDS", 3),
    warmupSeconds: n("BENCH_WARMUP_SECONDS", 2),
    connections: n("BENCH_CONNECTIONS", 32),
  };
}

/** A target's best round, every round's req/s, and the server's CPU share (0–1) in the best. */
export interface HttpMeasure {
  best: WrkResult;
  rounds: number[];
  bestCpu: number;
}

/** CPU seconds (user + system) of a process from `/proc/<pid>/stat` (via `cat`); NaN when unknown. */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  try {
    const stat = new TextDecoder().decode(
      (await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stderr: "null" }).output())
        .stdout,
    );
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

/** Below this CPU share a pinned, saturated server was starved (or its load generator was). */
export const BUSY = 0.9;

/**
 * The HTTP method (README "Benchmarks"): wrk on the load core (start the servers pinned); each
 * target gets `warmupSeconds` of discarded load, then `rounds` rounds run every target once in
 * turn and each target's best round is kept; a server CPU share below {@link BUSY} is warned
 * about. Throws on any non-2xx answer or socket error.
 */
export async function measureHttp(
  targets: Record<string, HttpTarget>,
  m: HttpMethod,
): Promise<Record<string, HttpMeasure>> {
  const run = (t: HttpTarget, seconds: number) =>
    wrk(t.url, { ...t, connections: m.connections, seconds });
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
        } ms  ` +
          `p99 ${r.p99Ms.toFixed(2)} ms${
            Number.isNaN(cpu) ? "" : `  server cpu ${(cpu * 100).toFixed(0)}%`
          }` +
          `${cpu < BUSY ? "  (starved: other load on the machine?)" : ""}`,
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
