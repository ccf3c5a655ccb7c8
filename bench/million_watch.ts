/**
 * What `bench/million.ts` watches on the app besides the step timings, on the idle app (the
 * baseline) and during forecast + aggregate passes: open-loop probes of GET /health and
 * GET /v1/console/status, and a console holding the live event stream open while an event ticker
 * feeds it; and the latency of the delivery-day overview.
 * @module
 */
import { sleep, stats } from "./common.ts";
import type { App } from "./million_app.ts";
import { call, openConsoleStream, Probe } from "./million_http.ts";
import { type Results, TICK_MS } from "./million_rows.ts";

/** An empty {@link Watch}. */
export const newWatch = (): Watch => ({
  health: [],
  status: [],
  tick: [],
  failures: 0,
  ticks: 0,
  tickEvents: 0,
  events: 0,
  silenceMs: 0,
  passS: 0,
  passes: 0,
});

/**
 * The idle baseline: the same watch as during a pass ({@link watchPass}: both probes, a console
 * on the live stream, the event ticker) for `seconds` on the idle app, after a discarded second.
 */
export async function idleWatch(
  app: App,
  seconds: number,
  probeMs: number,
): Promise<NonNullable<Results["busy"]>> {
  const warm = await watchPass(app, newWatch(), probeMs);
  await sleep(1000);
  await warm();
  const w = newWatch();
  const done = await watchPass(app, w, probeMs);
  await sleep(seconds * 1000);
  await done();
  return watched(w);
}

/** Pooled over every watched pass: probe latencies, ticker events, longest silence. */
export interface Watch {
  health: number[];
  status: number[];
  tick: number[];
  failures: number;
  ticks: number;
  tickEvents: number;
  events: number;
  silenceMs: number;
  passS: number;
  passes: number;
}

/**
 * Opens a console (stream token, live stream), then starts the probes and the event ticker;
 * the returned function stops them at the end of the pass and pools what they saw into `w`.
 */
export async function watchPass(
  app: App,
  w: Watch,
  probeMs: number,
): Promise<() => Promise<void>> {
  const auth = { "x-api-key": app.proc };
  const console_ = await openConsoleStream(app.url, app.proc);
  await sleep(300);
  const t0 = performance.now();
  const health = new Probe(`${app.url}/health`, { every: probeMs }).start();
  const status = new Probe(`${app.url}/v1/console/status`, { every: probeMs, headers: auth })
    .start();
  const ticker = new Probe(`${app.url}/v1/console/stop`, {
    every: TICK_MS,
    method: "POST",
    headers: auth,
  }).start();
  return async () => {
    const t1 = performance.now();
    await Promise.all([health.stop(), status.stop(), ticker.stop()]);
    const ticks = () => console_.events.filter((e) => e.kind === "orchestrator_stopped").length;
    const until = performance.now() + 5000;
    while (ticks() < ticker.sent && performance.now() < until) await sleep(50);
    await console_.close();
    const times = [t0, ...console_.events.map((e) => e.at).filter((t) => t >= t0 && t <= t1), t1];
    for (let i = 1; i < times.length; i++) {
      w.silenceMs = Math.max(w.silenceMs, times[i] - times[i - 1]);
    }
    for (const v of health.latencies) w.health.push(v);
    for (const v of status.latencies) w.status.push(v);
    for (const v of ticker.latencies) w.tick.push(v);
    w.failures += health.failures + status.failures + ticker.failures;
    w.ticks += ticker.sent;
    w.tickEvents += ticks();
    w.events += console_.events.length;
    w.passS += (t1 - t0) / 1000;
    w.passes++;
  };
}

/** The pooled watch as a result. */
export const watched = ({ tick, ...w }: Watch): NonNullable<Results["busy"]> => ({
  ...w,
  health: stats(w.health),
  status: stats(w.status),
  tickLatency: stats(tick),
});

/** p99 of GET /v1/console/delivery-days (sequential, after 20 discarded) with `days` days. */
export async function overview(app: App, days: number) {
  const url = `${app.url}/v1/console/delivery-days`;
  const get = () => call(url, { headers: { "x-api-key": app.proc }, limitMs: 10_000 });
  const first = JSON.parse((await get()).text) as { delivery_days: unknown[] };
  for (let i = 0; i < 20; i++) await get();
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) ms.push((await get()).ms);
  return { days, listed: first.delivery_days.length, ...stats(ms) };
}
