/**
 * Benchmark server (docs/benchmarks.md, "The rig"): the real app on `KV_PATH`, settings as in
 * `main.ts`, no cron, on 127.0.0.1 port 0 (prints `LISTENING <url>`); `BENCH_CLOCK_AT`, the
 * `BENCH_CONTROL=1` routes and `BENCH_TRACE` as docs/benchmarks.md describes them. SIGTERM drains,
 * closes and exits normally (so `--cpu-prof` is written).
 * @module
 */
import { createApp } from "../../app.ts";
import { type Clock, realSleep } from "../../lib/clock.ts";
import { loadSettings } from "../../lib/settings.ts";
import { marketLocationIndexSettled, withMasterDataLock } from "../../lib/pipeline/master_data.ts";
import { kvRetryCounts, openKv } from "../../lib/store/kv.ts";
import { stats, wallMs } from "../common.ts";

const env = Deno.env.toObject();
const settings = loadSettings(env);
const kv = await openKv(settings.kvPath);
let offset = env.BENCH_CLOCK_AT ? Number(env.BENCH_CLOCK_AT) - Date.now() : 0;
const clock: Clock = { now: () => Date.now() + offset, sleep: realSleep };
const bridge = await createApp({ settings, kv, ...(env.BENCH_CLOCK_AT ? { clock } : {}) });

async function appendAtRate(rate: number, seconds: number): Promise<Response> {
  const total = Math.min(Math.round(rate * seconds), 100_000);
  const committed: number[] = []; // append → commit (listener) latency per event
  const unsubscribe = bridge.ctx.events.subscribe((records) => {
    const now = wallMs();
    for (const r of records) {
      if (typeof r.data?.sent === "number") committed.push(now - r.data.sent);
    }
  });
  const t0 = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(bridge.ctx.events.append({
      kind: "config_changed",
      message: "benchmark fan-out event",
      data: { sent: wallMs(), seq: i },
    }));
  }
  const failed = (await Promise.allSettled(pending)).filter((r) => r.status === "rejected").length;
  unsubscribe();
  const { p50, p99, max } = stats(committed);
  return Response.json({ appended: total - failed, failed, commit_ms: { p50, p99, max } });
}

async function tick(): Promise<Response> {
  const next = (Math.floor(clock.now() / 60_000) + 1) * 60_000;
  offset += next - clock.now();
  const t0 = performance.now();
  const outcome = await bridge.orchestrator.tick("bench");
  return Response.json({ ms: performance.now() - t0, at: new Date(next).toISOString(), outcome });
}

const control: Record<string, (q: URLSearchParams) => Promise<Response>> = {
  "/__bench/append": (q) =>
    appendAtRate(Number(q.get("rate") ?? 100), Number(q.get("seconds") ?? 10)),
  "/__bench/settle": async () => {
    const t0 = performance.now();
    await marketLocationIndexSettled(bridge.ctx.kv);
    return Response.json({ waited_ms: performance.now() - t0 });
  },
  "/__bench/tick": tick,
};

let stopProbes: ReturnType<typeof setInterval> | undefined;
const trace = env.BENCH_TRACE
  ? { slow: [] as unknown[], lag: [] as unknown[], probes: [] as unknown[] }
  : undefined;
if (trace) {
  // Every 100 ms: the wait for this process's master-data lock, and one KV write's commit.
  const probe = async (what: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    if (ms > 100) trace.probes.push({ at: new Date(wallMs() - ms).toISOString(), what, ms });
  };
  stopProbes = setInterval(() => {
    probe("master-data lock wait", () => withMasterDataLock(bridge.ctx.kv, async () => {}));
    probe("kv write", () => bridge.ctx.kv.set(["bench_probe"], Date.now()));
  }, 100);
  let due = performance.now() + 10;
  setInterval(() => {
    const late = performance.now() - due;
    if (late > 50) trace.lag.push({ at: new Date(wallMs() - late).toISOString(), ms: late });
    due = performance.now() + 10;
  }, 10);
}

const handler: Deno.ServeHandler = async (req, info) => {
  const url = new URL(req.url);
  const own = env.BENCH_CONTROL === "1" ? control[url.pathname] : undefined;
  if (!trace) return own ? own(url.searchParams) : bridge.fetch(req, info);
  const t0 = performance.now();
  const lost0 = kvRetryCounts().conflict;
  const res = await (own ? own(url.searchParams) : bridge.fetch(req, info));
  const ms = performance.now() - t0;
  if (ms > 300) {
    const route = `${req.method} ${url.pathname.replace(/\d{6,}/g, ":id")}`;
    const lost = kvRetryCounts().conflict - lost0;
    const at = new Date(wallMs() - ms).toISOString();
    trace.slow.push({ at, route, ms, status: res.status, lost });
  }
  return res;
};

const ac = new AbortController();
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  signal: ac.signal,
  onListen: ({ port }) => console.log(`LISTENING http://127.0.0.1:${port}`),
}, handler);

const onTerm = async () => {
  Deno.removeSignalListener("SIGTERM", onTerm);
  clearInterval(stopProbes);
  ac.abort();
  const timer = setTimeout(() => Deno.exit(0), 3000); // open streams: do not hang
  await server.finished;
  // Requests a load tool left queued may still be in their handlers: let them finish first.
  await new Promise((r) => setTimeout(r, 500));
  await bridge.close();
  kv.close();
  if (trace) Deno.writeTextFileSync(env.BENCH_TRACE, JSON.stringify(trace));
  clearTimeout(timer);
};
Deno.addSignalListener("SIGTERM", onTerm);
