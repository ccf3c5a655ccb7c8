/**
 * The load side of the benchmarks (docs/benchmarks.md, "The rig"): bounded requests and senders,
 * budgets, probes, the live stream, an RSS sampler, raw answers, wrk and {@link measureHttp}.
 * @module
 */
import { cpuPinning, sleep } from "./common.ts";

/** A budget of `seconds`: ms left; a step's limit (`ms`, at most what is left less `reserveMs`). */
export function budget(seconds: number) {
  const end = performance.now() + seconds * 1000;
  const left = () => Math.max(0, end - performance.now());
  return {
    left,
    limit: (ms: number, reserveMs = 0) => Math.max(1, Math.min(ms, left() - reserveMs)),
  };
}
/** What {@link budget} returns. */
export type Budget = ReturnType<typeof budget>;

/** Thrown when a step did not finish within its limit. */
export class OverLimit extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: not finished within ${Math.round(ms / 1000)} s`);
    this.name = "OverLimit";
  }
}

/** Request options of {@link call}: a limit (ms, default 60 s), a name for errors, a client. */
type CallInit = RequestInit & { limitMs?: number; what?: string; client?: Deno.HttpClient };

/** One request bounded by `limitMs`; throws on a non-2xx answer. Its text and ms. */
export async function call(url: string, init: CallInit): Promise<{ text: string; ms: number }> {
  const t0 = performance.now();
  const { limitMs = 60_000 } = init;
  const what = init.what ?? `${init.method ?? "GET"} ${new URL(url).pathname}`;
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${what} → ${res.status}: ${text.slice(0, 400)}`);
    return { text, ms: performance.now() - t0 };
  } catch (err) {
    throw (err as Error).name === "TimeoutError" ? new OverLimit(what, limitMs) : err;
  }
}

/**
 * Sends every body to `url` (JSON, `method` default `POST`) with `concurrency` (4) clients;
 * throws on a non-200; past `limitMs` (300 s) aborts and throws {@link OverLimit}. Seconds.
 */
export async function sendAll(
  url: string,
  bodies: string[],
  o: { headers?: Record<string, string>; concurrency?: number; method?: string; limitMs?: number },
): Promise<number> {
  const { method = "POST", limitMs = 300_000 } = o;
  const signal = AbortSignal.timeout(limitMs);
  const headers = { "content-type": "application/json", ...o.headers };
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: o.concurrency ?? 4 }, async () => {
      while (next < bodies.length) {
        const res = await fetch(url, { method, headers, body: bodies[next++], signal });
        const text = await res.text();
        if (res.status !== 200) {
          throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
        }
      }
    }));
  } catch (err) {
    if (signal.aborted) {
      throw new OverLimit(`${method} ${new URL(url).pathname} (${bodies.length})`, limitMs);
    }
    throw err;
  }
  return (performance.now() - t0) / 1000;
}

/**
 * Open-loop probe: one request every `every` ms whether or not the previous ones answered (a
 * stalled server shows as many slow answers), each bounded by 10 s (counted as 10 s). Latency to
 * the end of the body; `stop()` waits for the answers still due.
 */
export function probe(url: string, every: number, init: RequestInit = {}) {
  const p = { latencies: [] as number[], failures: 0, sent: 0, stop: async () => {} };
  const pending = new Set<Promise<void>>();
  const t0 = performance.now();
  let timer: ReturnType<typeof setTimeout>;
  const tick = () => {
    const t = performance.now();
    const req = fetch(url, { ...init, signal: AbortSignal.timeout(10_000) }).then(async (res) => {
      await res.arrayBuffer();
      if (res.status !== 200) p.failures++;
      p.latencies.push(performance.now() - t);
    }, () => void (p.failures++, p.latencies.push(10_000))).finally(() => pending.delete(req));
    pending.add(req);
    timer = setTimeout(tick, Math.max(0, t0 + ++p.sent * every - performance.now()));
  };
  tick();
  p.stop = async () => {
    clearTimeout(timer);
    await Promise.all([...pending]);
  };
  return p;
}

/** The console's live stream as a browser reads it (token, then the stream): kinds and arrivals. */
export async function openConsoleStream(base: string, processKey: string) {
  const auth = { method: "POST", headers: { "x-api-key": processKey } };
  const { token } = JSON.parse((await call(`${base}/v1/console/stream-token`, auth)).text);
  const ac = new AbortController();
  const url = `${base}/v1/console/events/stream?token=${encodeURIComponent(token)}`;
  const res = await fetch(url, { headers: { accept: "text/event-stream" }, signal: ac.signal });
  if (res.status !== 200 || !res.body) throw new Error(`event stream answered ${res.status}`);
  const events: { kind: string; at: number }[] = [];
  const loop = (async () => {
    let buf = "";
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      const messages = (buf + chunk).split("\n\n");
      buf = messages.pop()!;
      for (const m of messages) {
        const kind = /^event: (.+)$/m.exec(m)?.[1];
        if (kind) events.push({ kind, at: performance.now() });
      }
    }
  })().catch(() => {}); // closed by us
  return { events, close: () => (ac.abort(), loop) };
}

/**
 * Samples `VmRSS`/`VmHWM` of `pid` every `everyMs` from `/proc/<pid>/status` through a `sh`
 * loop (Deno asks for `--allow-all` to read `/proc`). Bytes; `peak` since the last `mark()`.
 */
export class RssSampler {
  rss = 0;
  hwm = 0;
  peak = 0;
  samples = 0;
  #child: Deno.ChildProcess;
  #done: Promise<void>;

  constructor(readonly pid: number, everyMs = 20) {
    const script = `while grep -E '^(VmRSS|VmHWM):' /proc/${pid}/status 2>/dev/null; do ` +
      `echo .; sleep ${everyMs / 1000}; done`;
    const child = new Deno.Command("sh", { args: ["-c", script], stdout: "piped", stderr: "null" })
      .spawn();
    this.#child = child;
    this.#done = (async () => {
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        for (const line of chunk.split("\n")) {
          const m = /^(VmRSS|VmHWM):\s+(\d+) kB/.exec(line);
          if (line === ".") this.samples++;
          else if (m?.[1] === "VmHWM") this.hwm = Number(m[2]) * 1024;
          else if (m) this.peak = Math.max(this.peak, this.rss = Number(m[2]) * 1024);
        }
      }
    })();
  }

  /** Waits for the next sample (at most 2 s). */
  async fresh(): Promise<void> {
    const [n, until] = [this.samples, performance.now() + 2000];
    while (this.samples < n + 2 && performance.now() < until) await sleep(10);
  }

  /** A new peak window at the current RSS; resets the kernel's VmHWM where allowed. */
  async mark(): Promise<boolean> {
    const cmd = new Deno.Command("sh", { args: ["-c", `echo 5 > /proc/${this.pid}/clear_refs`] });
    const out = await cmd.output().catch(() => ({ success: false }));
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

/** One HTTP/1.1 request (`connection: close`), unparsed by `fetch` (which sorts headers). */
export async function rawHttp(
  url: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const head = Object.entries({ host: u.host, ...headers, connection: "close" });
  const w = conn.writable.getWriter();
  const request = `GET ${u.pathname} HTTP/1.1\r\n${
    head.map(([k, v]) => `${k}: ${v}\r\n`).join("")
  }\r\n`;
  await w.write(new TextEncoder().encode(request));
  w.releaseLock();
  const text = await new Response(conn.readable).text(); // the server closes after answering
  const cut = text.indexOf("\r\n\r\n");
  const [status, ...lines] = text.slice(0, cut).split("\r\n");
  const split = (l: string) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()];
  return { status, headers: lines.map(split) as [string, string][], body: text.slice(cut + 4) };
}

/** What one wrk run measured. */
export interface WrkResult {
  rps: number;
  non2xx: number;
  socketErrors: number;
  p50Ms: number;
  p99Ms: number;
}

/** True when `wrk` is on PATH. */
export function hasWrk(): Promise<boolean> {
  const cmd = new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" });
  return Promise.try(() => cmd.output()).then(() => true, () => false); // spawning may throw
}

/** Runs `wrk -t1 --latency` against a loopback URL on the load core. */
export async function wrk(url: string, o: HttpTarget & { connections: number; seconds: number }) {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`not a loopback target: ${url}`);
  const args = ["-t1", `-c${o.connections}`, `-d${o.seconds}s`, "--timeout", "5s", "--latency"];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (o.script) args.push("-s", o.script);
  const cmd = [...(await cpuPinning()).load, "wrk", ...args, url];
  const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), stdout: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  const lat = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(text);
    return m ? Number(m[1]) * ({ us: 1e-3, ms: 1, s: 1000 } as Record<string, number>)[m[2]] : NaN;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    p50Ms: lat("50"),
    p99Ms: lat("99"),
  };
}

/** A target of {@link measureHttp}: a wrk Lua `script` (e.g. POST), the server's `pid`. */
export interface HttpTarget {
  url: string;
  headers?: Record<string, string>;
  script?: string;
  pid?: number;
}

/** The method's settings from the environment (README "Benchmarks"). */
export function httpMethodFromEnv() {
  const n = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);
  return {
    seconds: n("BENCH_WRK_SECONDS", 5),
    rounds: n("BENCH_ROUNDS", 3),
    warmupSeconds: n("BENCH_WARMUP_SECONDS", 2),
    connections: n("BENCH_CONNECTIONS", 32),
  };
}

/** CPU seconds (user + system) of a process from `/proc/<pid>/stat` (via `cat`); NaN if unknown. */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stderr: "null" })
    .output();
  const stat = new TextDecoder().decode(out.stdout);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ is 100 on Linux
}

/** Below this CPU share a pinned, saturated server was starved (or its load generator was). */
export const BUSY = 0.9;

/**
 * The HTTP method (README "Benchmarks"): each target gets `warmupSeconds` of discarded load, then
 * `rounds` rounds run every target once in turn and each target's best round is kept, with the
 * server's CPU share in it (below {@link BUSY}: warned). Throws on a non-2xx or socket error.
 */
export async function measureHttp(
  targets: Record<string, HttpTarget>,
  m: ReturnType<typeof httpMethodFromEnv>,
): Promise<Record<string, { best: WrkResult; rounds: number[]; bestCpu: number }>> {
  const run = (t: HttpTarget, seconds: number) => wrk(t.url, { ...t, ...m, seconds });
  if (m.warmupSeconds > 0) {
    for (const t of Object.values(targets)) {
      await run(t, m.warmupSeconds);
    }
  }
  const out: Awaited<ReturnType<typeof measureHttp>> = {};
  for (let round = 1; round <= m.rounds; round++) {
    for (const [name, t] of Object.entries(targets)) {
      const [cpu0, t0] = [await cpuSeconds(t.pid), performance.now()];
      const r = await run(t, m.seconds);
      const cpu = (await cpuSeconds(t.pid) - cpu0) / ((performance.now() - t0) / 1000);
      if (r.non2xx || r.socketErrors) {
        throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors`);
      }
      const [rps, p50, p99] = [
        r.rps.toFixed(0).padStart(7),
        r.p50Ms.toFixed(2),
        r.p99Ms.toFixed(2),
      ];
      const starved = cpu < BUSY ? "  (starved)" : "";
      console.log(
        `round ${round} ${name.padEnd(10)} ${rps} req/s  p50 ${p50} ms  p99 ${p99} ms  ` +
          `server cpu ${(cpu * 100).toFixed(0)}%${starved}`,
      );
      const o = out[name] ??= { best: r, rounds: [], bestCpu: cpu };
      o.rounds.push(r.rps);
      if (r.rps > o.best.rps) [o.best, o.bestCpu] = [r, cpu];
    }
  }
  return out;
}
