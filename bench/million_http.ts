/**
 * Load-side helpers of `bench/million.ts`: pinning this process (the load generator) to the load
 * core, a run budget, bounded requests and batch senders, open-loop latency probes, a console
 * live-stream reader and a sampler of another process's RSS from `/proc/<pid>/status`.
 * @module
 */
import { cpuPinning, sleep } from "./common.ts";

/**
 * Pins every thread of this process to the load core of {@link cpuPinning} (`taskset -a -p`);
 * threads started later inherit it. Returns one line for the output.
 */
export async function pinLoadGenerator(): Promise<string> {
  const pin = await cpuPinning();
  if (!pin.load.length) return pin.describe;
  const core = pin.load[pin.load.length - 1];
  const out = await new Deno.Command("taskset", {
    args: ["-a", "-cp", core, String(Deno.pid)],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr).trim();
    console.error(`warning: could not pin the load generator: ${why}`);
    return `${pin.describe}; this process NOT pinned`;
  }
  return `app and bare servers on core ${pin.server[pin.server.length - 1]}, ` +
    `this process (the load generator: HTTP clients, probes, stream reader) on core ${core}`;
}

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
  init: RequestInit & { limitMs: number; what?: string },
): Promise<{ text: string; ms: number; status: number }> {
  const t0 = performance.now();
  const what = init.what ?? `${init.method ?? "GET"} ${new URL(url).pathname}`;
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.limitMs) });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${what} → ${res.status}: ${text.slice(0, 400)}`);
    }
    return { text, ms: performance.now() - t0, status: res.status };
  } catch (err) {
    if ((err as Error).name === "TimeoutError") throw new OverLimit(what, init.limitMs);
    throw err;
  }
}

/**
 * Sends every body to `url` with `concurrency` clients (as `postAll` of `bench/portfolio.ts`),
 * but bounded: past `limitMs` the requests in flight are aborted and {@link OverLimit} is thrown.
 * Returns seconds.
 */
export async function sendAll(
  url: string,
  bodies: string[],
  o: { headers: Record<string, string>; concurrency: number; method: string; limitMs: number },
): Promise<number> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), o.limitMs);
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: o.concurrency }, async () => {
      while (next < bodies.length && !ac.signal.aborted) {
        const body = bodies[next++];
        const res = await fetch(url, {
          method: o.method,
          headers: { "content-type": "application/json", ...o.headers },
          body,
          signal: ac.signal,
        });
        const text = await res.text();
        if (res.status !== 200) {
          ac.abort();
          throw new Error(`${o.method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
        }
      }
    }));
  } catch (err) {
    if (ac.signal.aborted && (err as Error).name === "AbortError") {
      throw new OverLimit(`${o.method} ${new URL(url).pathname} (${bodies.length})`, o.limitMs);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
  if (next < bodies.length) throw new OverLimit(`${o.method} ${url}`, o.limitMs);
  return (performance.now() - t0) / 1000;
}

/**
 * Open-loop probe: one request every `everyMs` whether or not the previous ones answered (so a
 * stalled server shows as many slow answers, not as one), each bounded by `timeoutMs` (a request
 * past it counts with `timeoutMs` as its latency). Latency from send to the end of the body.
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

  start(): this {
    this.#running = true;
    const t0 = performance.now();
    const tick = () => {
      if (!this.#running) return;
      this.#fire();
      const due = t0 + this.sent * this.o.every;
      this.#timer = setTimeout(tick, Math.max(0, due - performance.now()));
    };
    tick();
    return this;
  }

  #fire() {
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
  }

  /** Stops sending and waits for the answers still due (each bounded by `timeoutMs`). */
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
    limitMs: 10_000,
  });
  const token = (JSON.parse(text) as { token: string }).token;
  const ac = new AbortController();
  const res = await fetch(
    `${base}/v1/console/events/stream?token=${encodeURIComponent(token)}`,
    { headers: { accept: "text/event-stream" }, signal: ac.signal },
  );
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
 * Samples `VmRSS` and `VmHWM` of `pid` every `everyMs` from `/proc/<pid>/status` (through a
 * `sh` loop: Deno asks for `--allow-all` to read `/proc` itself). Runs in this process's
 * placement (the load core when pinned).
 */
export class RssSampler {
  /** Latest VmRSS, bytes. */
  rss = 0;
  /** Latest VmHWM, bytes. */
  hwm = 0;
  /** Largest VmRSS sampled since the last {@link mark}, bytes. */
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
    }).spawn();
    this.#child = child;
    this.#done = (async () => {
      let buf = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        const lines = buf.split("\n");
        buf = lines.pop()!;
        for (const line of lines) {
          const m = /^(VmRSS|VmHWM):\s+(\d+) kB/.exec(line);
          if (!m) {
            if (line === ".") this.samples++;
            continue;
          }
          const bytes = Number(m[2]) * 1024;
          if (m[1] === "VmHWM") this.hwm = bytes;
          else {
            this.rss = bytes;
            this.peak = Math.max(this.peak, bytes);
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

  async stop(): Promise<void> {
    try {
      this.#child.kill("SIGTERM");
    } catch { /* gone */ }
    await this.#child.status;
    await this.#done.catch(() => {});
  }
}
