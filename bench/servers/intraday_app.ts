/**
 * Benchmark server of `bench/intraday.ts`: the real app (`createApp`) on the KV file `KV_PATH`,
 * served on 127.0.0.1 port 0 (prints `LISTENING <url>`), on a clock that starts at
 * `BENCH_CLOCK_AT` (epoch ms) and runs on in real time — so the running day can be at 09:07
 * Berlin whatever the machine's date. Settings from the environment as in `main.ts`; no cron:
 * the orchestrator's tick is asked for by the load generator instead.
 *
 * Control route: `POST /__bench/tick` moves the clock to the start of the next minute (where
 * `Deno.cron` would fire; each tick needs its own minute's lease) and runs one
 * `orchestrator.tick`; answers `{ms, at, outcome}` (ms: the tick's duration in this process).
 * `POST /__bench/settle` waits until the in-memory index of registered MaLo-IDs (built once after
 * start, begun by the first forecast upload) is built.
 *
 * SIGTERM: stops serving, closes the app and KV, exits normally.
 * @module
 */
import { createApp } from "../../app.ts";
import type { Clock } from "../../lib/clock.ts";
import { realSleep } from "../../lib/clock.ts";
import { loadSettings } from "../../lib/settings.ts";
import { marketLocationIndexSettled } from "../../lib/pipeline/master_data.ts";

const env = Deno.env.toObject();
const settings = loadSettings(env);
const kv = await Deno.openKv(settings.kvPath);
let offset = Number(env.BENCH_CLOCK_AT ?? Date.now()) - Date.now();
const clock: Clock = { now: () => Date.now() + offset, sleep: realSleep };
const bridge = await createApp({ settings, kv, clock });

async function tick(): Promise<Response> {
  const next = (Math.floor(clock.now() / 60_000) + 1) * 60_000;
  offset += next - clock.now();
  const t0 = performance.now();
  const outcome = await bridge.orchestrator.tick("bench");
  const ms = performance.now() - t0;
  return Response.json({ ms, at: new Date(next).toISOString(), outcome });
}

const ac = new AbortController();
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  signal: ac.signal,
  onListen: ({ port }) => console.log(`LISTENING http://127.0.0.1:${port}`),
}, async (req, info) => {
  if (req.url.endsWith("/__bench/tick")) return await tick();
  if (req.url.endsWith("/__bench/settle")) {
    await marketLocationIndexSettled(bridge.ctx.kv);
    return Response.json({ settled: true });
  }
  return await bridge.fetch(req, info);
});

const onTerm = async () => {
  Deno.removeSignalListener("SIGTERM", onTerm);
  ac.abort();
  const timer = setTimeout(() => Deno.exit(0), 3000);
  await server.finished;
  await bridge.close();
  kv.close();
  clearTimeout(timer);
};
Deno.addSignalListener("SIGTERM", onTerm);
