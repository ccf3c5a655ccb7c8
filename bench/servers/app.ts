/**
 * Benchmark server: the real app (`createApp`) on the KV file named by `KV_PATH` (the parent owns
 * and removes its folder), served by `Deno.serve` on 127.0.0.1 port 0. Prints `LISTENING <url>`.
 * Settings come from the environment exactly as in `main.ts` (no cron is registered).
 *
 * With `BENCH_CONTROL=1` it also answers `POST /__bench/append?rate=&seconds=`: appends
 * `config_changed` events through the app's own {@link EventLog} at `rate` per second for
 * `seconds`, each carrying its send instant (`data.sent`, ms, `performance.timeOrigin`-based) and
 * `data.seq`; answers once every append resolved, with the append → commit latency (p50, p99,
 * max, ms, taken in an {@link EventLog} listener); and `POST /__bench/settle`: waits until the
 * app's in-memory index of registered MaLo-IDs is built (a one-off after start, begun by the first
 * forecast upload) and answers `{waited_ms}`. Without it, `bridge.fetch` is served unwrapped.
 *
 * SIGTERM: stops serving, drains events, closes KV and exits normally (so `--cpu-prof` is written).
 * @module
 */
import { createApp } from "../../app.ts";
import { loadSettings } from "../../lib/settings.ts";
import { openKv } from "../../lib/store/kv.ts";
import { marketLocationIndexSettled } from "../../lib/pipeline/master_data.ts";

const env = Deno.env.toObject();
const settings = loadSettings(env);
const kv = await openKv(settings.kvPath);
const bridge = await createApp({ settings, kv });
const wallMs = () => performance.timeOrigin + performance.now();

async function appendAtRate(rate: number, seconds: number): Promise<Response> {
  const total = Math.min(Math.round(rate * seconds), 100_000);
  // append → commit (listener) latency per event, to split the stream's latency.
  const committed: number[] = [];
  const unsubscribe = bridge.ctx.events.subscribe((records) => {
    const now = wallMs();
    for (const r of records) {
      const sent = r.data?.sent;
      if (typeof sent === "number") committed.push(now - sent);
    }
  });
  const t0 = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(bridge.ctx.events.append({
      kind: "config_changed",
      message: "benchmark fan-out event",
      data: { sent: wallMs(), seq: i },
    }));
  }
  const results = await Promise.allSettled(pending);
  unsubscribe();
  const failed = results.filter((r) => r.status === "rejected").length;
  committed.sort((a, b) => a - b);
  const at = (p: number) =>
    committed[Math.min(committed.length - 1, Math.ceil(p * committed.length) - 1)];
  return Response.json({
    appended: total - failed,
    failed,
    commit_ms: { p50: at(0.5), p99: at(0.99), max: committed[committed.length - 1] },
  });
}

/** Waits for the app's one-off start work (the registered-MaLo-ID index build); answers the ms. */
async function settle(): Promise<Response> {
  const t0 = performance.now();
  await marketLocationIndexSettled(bridge.ctx.kv);
  return Response.json({ waited_ms: performance.now() - t0 });
}

const handler: Deno.ServeHandler = env.BENCH_CONTROL === "1"
  ? (req, info) => {
    if (req.url.endsWith("/__bench/settle")) return settle();
    if (req.url.includes("/__bench/append")) {
      const q = new URL(req.url).searchParams;
      return appendAtRate(Number(q.get("rate") ?? 100), Number(q.get("seconds") ?? 10));
    }
    return bridge.fetch(req, info);
  }
  : bridge.fetch;

const ac = new AbortController();
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  signal: ac.signal,
  onListen: ({ port }) => console.log(`LISTENING http://127.0.0.1:${port}`),
}, handler);

const onTerm = async () => {
  Deno.removeSignalListener("SIGTERM", onTerm);
  ac.abort();
  const timer = setTimeout(() => Deno.exit(0), 3000); // open streams: do not hang
  await server.finished;
  // Requests a load tool left queued may still be in their handlers: let them finish first.
  await new Promise((r) => setTimeout(r, 500));
  await bridge.close();
  kv.close();
  clearTimeout(timer);
};
Deno.addSignalListener("SIGTERM", onTerm);
