/**
 * The `million` part (docs/benchmarks.md, "The parts"): the bridge at `BENCH_MILLION_N`
 * (1,000,000) locations through the rig, a small run at `BENCH_MILLION_SMALL_N` (100,000), then
 * `BENCH_MILLION_DAYS` (10) days in one app process, watched; each row names its goal. Bounded by
 * `BENCH_MILLION_STEP_LIMIT_S` (180) a step and `BENCH_MILLION_BUDGET_S` (840) in all.
 * @module
 */
import { addDays, nextOpenDay } from "../lib/domain/delivery_day.ts";
import { exactOpenPosition } from "../tests/support/profile_portfolio.ts";
import { failedRow, num, pinLoadGenerator, report, type Row, row, sleep } from "./common.ts";
import { spawnServer, type Stats, stats, tempDir } from "./common.ts";
import { type Budget, budget, call, openConsoleStream, OverLimit, probe } from "./http.ts";
import { sendAll } from "./http.ts";
import { AREAS, benchLocation, customerValues, locationBatches } from "./portfolio.ts";
import { type App, bareList, type DayTimes, key, openPosition, REGION } from "./rig.ts";
import { register, runDay, startApp } from "./rig.ts";

const PART = "million";
const N = num("BENCH_MILLION_N", 1_000_000);
const SMALL_N = num("BENCH_MILLION_SMALL_N", 100_000);
const CUSTOMERS = Math.min(N, num("BENCH_MILLION_CUSTOMERS", 10_000));
/** Customer forecasts of the small run: by default the same share as in the main run. */
const SMALL_SHARE = Math.round((CUSTOMERS * SMALL_N) / N);
const SMALL_CUSTOMERS = Math.min(SMALL_N, num("BENCH_MILLION_SMALL_CUSTOMERS", SMALL_SHARE));
const DAYS = Math.max(3, num("BENCH_MILLION_DAYS", 10));
const CONCURRENCY = num("BENCH_MILLION_CONCURRENCY", 4);
const PROBE_MS = num("BENCH_MILLION_PROBE_MS", 20);
const BUDGET_S = num("BENCH_MILLION_BUDGET_S", 840);
const STEP_LIMIT_MS = num("BENCH_MILLION_STEP_LIMIT_S", 180) * 1000;
/** RSS settle window after each day (ms); the lowest sample counts. */
const SETTLE_MS = num("BENCH_MILLION_SETTLE_MS", 3000);
/** After the first and last day (ms): V8's memory reducer waits 8 s, then up to two more GCs. */
const GOAL_SETTLE_MS = num("BENCH_MILLION_GOAL_SETTLE_MS", 12_000);
/** Left for the final bare list and the clean-up: about a minute at 1,000,000. */
const RESERVE_MS = Math.max(20_000, (N / 1_000_000) * 60_000);
/** Untimed first batches of registration; the event ticker's interval during a pass (ms). */
const [WARM_BATCHES, TICK_MS] = [4, 250];
const MiB = 2 ** 20;

/** Pooled over the watched passes: probe latencies, ticker events, longest stream silence. */
const zero = { failures: 0, ticks: 0, tickEvents: 0, events: 0, silenceMs: 0, passS: 0, passes: 0 };
const newWatch = () => ({ health: [] as number[], status: [] as number[], ...zero });
type Watch = ReturnType<typeof newWatch>;
const watched = (w: Watch) => ({ ...w, health: stats(w.health), status: stats(w.status) });
type Watched = ReturnType<typeof watched>;

/**
 * Opens a console on the live stream, then starts open-loop probes of `/health` and the status
 * and an event ticker (`POST /v1/console/stop`); the returned function stops them and pools.
 */
async function watchPass(app: App, w: Watch): Promise<() => Promise<void>> {
  const stream = await openConsoleStream(app.url, app.proc);
  await sleep(300);
  const t0 = performance.now();
  const headers = key(app.proc);
  const health = probe(`${app.url}/health`, PROBE_MS, { headers });
  const status = probe(`${app.url}/v1/console/status`, PROBE_MS, { headers });
  const ticker = probe(`${app.url}/v1/console/stop`, TICK_MS, { headers, method: "POST" });
  return async () => {
    const t1 = performance.now();
    await Promise.all([health.stop(), status.stop(), ticker.stop()]);
    const ticks = () => stream.events.filter((e) => e.kind === "orchestrator_stopped").length;
    const until = performance.now() + 5000;
    while (ticks() < ticker.sent && performance.now() < until) await sleep(50);
    await stream.close();
    const times = [t0, ...stream.events.map((e) => e.at).filter((t) => t >= t0 && t <= t1), t1];
    times.forEach((t, i) => w.silenceMs = Math.max(w.silenceMs, i ? t - times[i - 1] : 0));
    w.health.push(...health.latencies);
    w.status.push(...status.latencies);
    w.failures += health.failures + status.failures + ticker.failures;
    [w.ticks, w.tickEvents] = [w.ticks + ticker.sent, w.tickEvents + ticks()];
    [w.passS, w.passes] = [w.passS + (t1 - t0) / 1000, w.passes + 1];
    w.events += stream.events.length;
  };
}

/** Everything a run measured; a field is missing when its phase did not get that far. */
interface Results {
  small?: { forecast: number; aggregate: number; base?: { s: number } };
  bareReg?: { s: number; warmS: number };
  reg?: { s: number; warmS: number };
  idle?: Watched;
  busy?: Watched;
  rssIdle?: number;
  days: { day: string; times: DayTimes; rss: number; rssShort: number }[];
  peak?: { rss: number; hwm: number; reset: boolean };
  exact?: { diff: number; profileOnly: number; largest: number; days: string[] };
  overview?: Stats & { days: number; listed: number };
  base?: { s: number; from: string };
  kvPaths: string[];
  stoppedEarly?: string;
  failures: string[];
}

/** The small run: `SMALL_N` locations, a warm-up day and a measured forecast + aggregate. */
async function smallRun(days: string[], b: Budget, r: Results): Promise<void> {
  const dir = await tempDir("bench-million-small-");
  const app = await startApp(dir.path);
  try {
    await register(app, locationBatches(SMALL_N), CONCURRENCY, b.limit(300_000));
    const limitMs = () => b.limit(STEP_LIMIT_MS, RESERVE_MS);
    const o = { n: SMALL_N, customers: SMALL_CUSTOMERS, limitMs, through: "aggregate" as const };
    await runDay(app, days[0], o);
    const { times } = await runDay(app, days[1], o);
    r.small = { forecast: times.forecast, aggregate: times.aggregate };
    await app.server.stop();
    r.small.base = await bareList(app.kvPath, b.limit(60_000));
  } finally {
    await app.stop();
    await dir.remove();
  }
}

/** Registration of the N locations: to the bare store server, then to the app (returned). */
async function registration(b: Budget, dir: string, r: Results): Promise<App> {
  const bodies = locationBatches(N);
  const [warm, measured] = [bodies.slice(0, WARM_BATCHES), bodies.slice(WARM_BATCHES)];
  const limitMs = () => b.limit(600_000, RESERVE_MS);
  const env = { BARE_MODE: "store", KV_PATH: `${dir}/bare.kv` };
  const bare = await spawnServer("bench/servers/bare.ts", env, [], { pinned: true });
  try {
    const o = { concurrency: CONCURRENCY, method: "PUT" };
    const send = (part: string[]) => sendAll(`${bare.url}/`, part, { ...o, limitMs: limitMs() });
    r.bareReg = { warmS: await send(warm), s: await send(measured) };
  } finally {
    await bare.stop();
  }
  const app = await startApp(`${dir}/app`);
  r.kvPaths = [app.kvPath, env.KV_PATH];
  try {
    const warmS = await register(app, warm, CONCURRENCY, limitMs());
    r.reg = { warmS, s: await register(app, measured, CONCURRENCY, limitMs()) };
    return app;
  } catch (err) {
    await app.stop();
    throw err;
  }
}

/** The watch for `ms` on the idle app (after a discarded second), or around a pass. */
async function watchFor(app: App, ms: number): Promise<Watched> {
  await (await watchPass(app, newWatch()))();
  const w = newWatch();
  const done = await watchPass(app, w);
  await sleep(ms);
  await done();
  return watched(w);
}

/** p99 of GET /v1/console/delivery-days (200 sequential, after 20 discarded) with `days` days. */
async function overview(app: App, days: number) {
  const get = () => call(`${app.url}/v1/console/delivery-days`, { headers: key(app.proc) });
  const listed = JSON.parse((await get()).text).delivery_days.length as number;
  for (let i = 0; i < 20; i++) await get();
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) ms.push((await get()).ms);
  return { days, listed, ...stats(ms) };
}

/** The N locations of the portfolio, one by one. */
function* portfolio() {
  for (let i = 0; i < N; i++) yield benchLocation(i, "");
}

/** Largest |app − exact| over every area and quarter-hour, MW (`exact` in kW). */
function maxAbsDiff(app: Record<string, number[]>, exact: Record<string, Float64Array>): number {
  let max = 0;
  for (const [area, want] of Object.entries(exact)) {
    if (app[area]?.length !== want.length) return Infinity;
    want.forEach((v, q) => max = Math.max(max, Math.abs(app[area][q] - v / 1000)));
  }
  return max;
}

/** Days 1–2: the open position the app answers against the exact per-location sum. */
async function checkExact(app: App, day: string, customerBodies: string[], r: Results) {
  const got = await openPosition(app, day);
  const opts = { withProfiles: true, region: REGION, activeAreas: AREAS };
  const exact = (c: Map<string, number[]>) => exactOpenPosition(portfolio(), day, c, opts).kw;
  const want = exact(customerValues(customerBodies));
  const x = r.exact ??= { diff: 0, profileOnly: Infinity, largest: 0, days: [] };
  x.diff = Math.max(x.diff, maxAbsDiff(got, want));
  x.profileOnly = Math.min(x.profileOnly, maxAbsDiff(got, exact(new Map())));
  for (const v of Object.values(want)) {
    for (const q of v) x.largest = Math.max(x.largest, Math.abs(q / 1000));
  }
  x.days.push(day);
}

/** Registration and the days of the main run. */
async function mainRun(days: string[], b: Budget, dir: string, r: Results): Promise<void> {
  const app = await registration(b, dir, r);
  try {
    await sleep(2000); // let the app (and this process) settle after registration
    r.idle = await watchFor(app, 10_000);
    await app.rss.fresh();
    r.rssIdle = app.rss.rss;
    const w = newWatch();
    let [lastDayMs, reset, after] = [0, false, async () => {}];
    for (let k = 0; k < DAYS; k++) {
      if (k > 0 && b.left() < lastDayMs * 1.3 + RESERVE_MS) {
        r.stoppedEarly = `${k} of ${DAYS} days fit the time budget of ${BUDGET_S} s`;
        break;
      }
      const t0 = performance.now();
      // Day 2: the peak RSS of the pass; days 3+: the watch around it.
      const around = {
        before: async () => {
          if (k === 1) reset = await app.rss.mark();
          if (k >= 2) after = await watchPass(app, w);
        },
        after: async () => {
          await app.rss.fresh();
          if (k === 1) r.peak = { rss: app.rss.peak, hwm: app.rss.hwm, reset };
          if (k >= 2) await after(), r.busy = watched(w);
        },
      };
      const limitMs = () => b.limit(STEP_LIMIT_MS, RESERVE_MS);
      const opts = { n: N, customers: CUSTOMERS, concurrency: CONCURRENCY, limitMs, around };
      const { times, customerBodies } = await runDay(app, days[k], opts);
      const entry = { day: days[k], times, rss: Infinity, rssShort: Infinity };
      r.days.push(entry);
      if (k < 2) await checkExact(app, days[k], customerBodies, r);
      // The settled RSS: the lowest VmRSS over the window (every 100 ms); `rssShort` over SETTLE_MS.
      const window = k === 0 || k === DAYS - 1 ? Math.max(GOAL_SETTLE_MS, SETTLE_MS) : SETTLE_MS;
      for (let waited = 0; waited < window; waited += 100) {
        await sleep(100);
        await app.rss.fresh();
        entry.rss = Math.min(entry.rss, app.rss.rss);
        if (waited < SETTLE_MS) entry.rssShort = Math.min(entry.rssShort, app.rss.rss);
      }
      if (k === Math.min(6, DAYS - 1)) r.overview = await overview(app, k + 1);
      lastDayMs = performance.now() - t0;
      const steps = Object.entries(times).map(([s, v]) => `${s} ${v.toFixed(2)}`).join(", ");
      console.log(`day ${k + 1}: ${steps} s; app RSS ${(entry.rss / MiB).toFixed(0)} MiB`);
    }
  } finally {
    await app.stop();
  }
}

const nan = (n: number | undefined) => n ?? NaN;
const s2 = (s: number) => `${s.toFixed(2)} s`;
const at1M = N === 1_000_000 ? "" : " (goal at 1,000,000)";
const sum = (t: DayTimes) => Object.values(t).reduce((a, v) => a + (v || 0), 0);

/** The part's rows, goal rows in the issue's order (an unmeasured goal: no value, not met). */
function buildRows(r: Results): Row[] {
  const rows: Row[] = [];
  const add = (metric: string, value: number, unit: string, o: Parameters<typeof row>[4]) =>
    rows.push(row(PART, metric, value, unit, o));
  const n = N.toLocaleString("en-US");
  const [d1, d2] = r.days;
  const pass = d2 ? d2.times.forecast + d2.times.aggregate : NaN;
  add(`forecast + aggregate a day of ${n} locations (warm)`, pass, "s", {
    base: [`bare kv.list of the ${n} location records (${r.base?.from})`, r.base?.s],
    goal: [`< 10 s${at1M}`, pass < 10],
    note: d2 && `forecast ${s2(d2.times.forecast)}, aggregate ${s2(d2.times.aggregate)}`,
  });
  const p = r.peak;
  const peak = p ? Math.max(p.rss, p.reset ? p.hwm : 0) : NaN;
  add("peak RSS of the app process during that pass", peak / MiB, "MiB", {
    base: ["app RSS idle before the first day", r.rssIdle && r.rssIdle / MiB],
    goal: [`< 1024 MiB${at1M}`, peak < 1024 * MiB],
    note: p && `VmRSS every 20 ms: max ${(p.rss / MiB).toFixed(0)} MiB; VmHWM ` +
        `${(p.hwm / MiB).toFixed(0)} MiB (${p.reset ? "reset before the pass" : "NOT reset"})`,
  });
  const small = SMALL_N === N && d2 ? { ...d2.times, base: r.base } : r.small;
  const s = small ? small.forecast + small.aggregate : NaN;
  const sn = SMALL_N.toLocaleString("en-US");
  if (SMALL_N > 0) {
    add(`forecast + aggregate a day of ${sn} locations (warm)`, s, "s", {
      base: [`bare kv.list of the ${sn} records`, small?.base?.s],
      goal: [`< 1 s${SMALL_N === 100_000 ? "" : " (goal at 100,000)"}`, s < 1],
      note: `${SMALL_CUSTOMERS} customer forecasts`,
    });
  }
  const x = r.exact;
  add("open position vs exact per-location sum, max |Δ|", nan(x?.diff), "MW", {
    base: ["largest |exact| quarter-hour value", x?.largest],
    goal: ["≤ 0.001 MW", x ? x.diff <= 0.001 : false],
    note: x && `days ${x.days.join(", ")}, ${CUSTOMERS} customer forecasts; ` +
        `the profile-only sum is off by ${x.profileOnly.toFixed(3)} MW`,
  });
  const counted = N - WARM_BATCHES * 500;
  const [app, bare] = [counted / nan(r.reg?.s), counted / nan(r.bareReg?.s)];
  add(`registration: PUT /v1/market-locations, ${n} in batches of 500`, app, "locations/s", {
    base: ["bare parse+store (bench/servers/bare.ts store), same batches", bare],
    goal: ["≥ 0.5× bare", app / bare >= 0.5],
  });
  const p99 = (metric: string, s: Stats | undefined, note?: string) =>
    add(metric, nan(s?.p99), "ms", {
      base: ["GET /health p99, idle app", r.idle?.health.p99],
      goal: ["< 50 ms", s ? s.p99 < 50 : false],
      note,
    });
  const ov = r.overview;
  const ovNote = ov &&
    `${ov.listed} days listed; p50 ${ov.p50.toFixed(2)} ms, max ${ov.max.toFixed(2)} ms`;
  p99(`GET /v1/console/delivery-days, ${ov?.days} days at ${n} locations, p99`, ov, ovNote);
  const w = r.busy;
  const during = `during ${n}-location forecast + aggregate passes`;
  const probeNote = (s?: Stats) =>
    w && s && `${s.n} requests over ${w.passes} passes (${w.passS.toFixed(1)} s), p50 ` +
      `${s.p50.toFixed(2)} ms, max ${s.max.toFixed(0)} ms; ${w.failures} failed`;
  p99(`GET /health p99 ${during}`, w?.health, probeNote(w?.health));
  p99(`GET /v1/console/status p99 ${during}`, w?.status, probeNote(w?.status));
  const heard = !!w && w.tickEvents >= w.ticks && w.silenceMs < 1000;
  add(`console live stream ${during}: longest silence`, nan(w?.silenceMs), "ms", {
    base: ["same watch on the idle app", r.idle?.silenceMs],
    goal: ["every event received, silence < 1000 ms", heard],
    note: w && `${w.tickEvents}/${w.ticks} ticker events received, ${w.events} events in all`,
  });
  const e2e = d1 && r.reg ? r.reg.warmS + r.reg.s + sum(d1.times) : NaN;
  const bareE2e = r.bareReg && r.base && r.bareReg.warmS + r.bareReg.s + r.base.s;
  add(`end to end, ${n}-location day: registration → … → submit (files, ESS)`, e2e, "s", {
    base: ["bare registration + bare kv.list", bareE2e],
    goal: [`< 30 s${at1M}`, e2e < 30],
    note: d1 && Object.entries(d1.times).map(([k, v]) => `${k} ${s2(v)}`).join(", "),
  });
  const [first, last] = [d1?.rss, r.days[r.days.length - 1]?.rss];
  const mib = (f: "rss" | "rssShort") => r.days.map((d) => (d[f] / MiB).toFixed(0)).join(" → ");
  const perDay = r.days.map((d) => sum(d.times).toFixed(1)).join(", ");
  add(`app RSS after day ${r.days.length} of ${DAYS} (one process)`, nan(last) / MiB, "MiB", {
    base: ["app RSS after day 1", first && first / MiB],
    goal: [`≤ 1.10× after ${DAYS} days`, r.days.length >= DAYS && last / first <= 1.1],
    note: `settled ${mib("rss")} MiB; lowest in the first 3 s ${mib("rssShort")} MiB; ` +
      `seconds a day ${perDay}${r.stoppedEarly ? `; STOPPED: ${r.stoppedEarly}` : ""}`,
  });
  return [...rows, ...r.failures.map((f) => failedRow(PART, f))];
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const placement = await pinLoadGenerator();
  console.log(`${placement}; N ${N}, small ${SMALL_N}, ${CUSTOMERS} customers, ${DAYS} days`);
  const b = budget(BUDGET_S);
  const first = nextOpenDay(Date.now() + 3_600_000); // no gate closes while the run lasts
  const days = Array.from({ length: DAYS }, (_, i) => addDays(first, i));
  const r: Results = { days: [], kvPaths: [], failures: [] };
  const dir = await tempDir("bench-million-");
  const attempt = (what: string, fn: () => Promise<void>) =>
    fn().catch((err) => {
      console.error(`${err instanceof OverLimit ? "over limit" : "FAILED"}: ${what}: ${err}`);
      r.failures.push(`${what}: ${err.message}`);
    });
  try {
    if (SMALL_N > 0 && SMALL_N !== N) await attempt("small run", () => smallRun(days, b, r));
    await attempt("main run", () => mainRun(days, b, dir.path, r));
    for (const [i, path] of r.kvPaths.entries()) {
      if (r.base) continue;
      await attempt("bare kv.list", async () => {
        const l = await bareList(path, b.limit(RESERVE_MS * 2));
        if (l.n === N) r.base = { s: l.s, from: i === 0 ? "app's KV" : "bare KV" };
      });
    }
  } finally {
    await dir.remove();
  }
  return buildRows(r);
}

if (import.meta.main) {
  report(await main());
  Deno.exit(0); // nothing left behind by a step cut short may keep the process alive
}
