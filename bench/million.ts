/**
 * The `million` part (docs/benchmarks.md, "million"): the bridge at `BENCH_MILLION_N` (1,000,000)
 * market locations through the real app over HTTP (the rig, `bench/rig.ts`), this process the
 * pinned load generator. A small run (`BENCH_MILLION_SMALL_N`, 100,000: forecast + aggregate,
 * goal < 1 s), registration against the bare store server, an idle watch, then
 * `BENCH_MILLION_DAYS` (10) days end to end in one app process: day 1 end to end (< 30 s), day 2
 * forecast + aggregate (< 10 s) and its peak RSS (< 1 GiB), days 1–2 checked against the exact
 * sum (≤ 0.001 MW), days 3+ watched (probes p99 < 50 ms, the live stream never silent 1 s), the
 * overview after day 7 (< 50 ms), the settled RSS after the last day (≤ 1.10× day 1).
 * Bounded by `BENCH_MILLION_STEP_LIMIT_S` (180) per step and `BENCH_MILLION_BUDGET_S` (840).
 * @module
 */
import { addDays, nextOpenDay } from "../lib/domain/delivery_day.ts";
import {
  failedRow,
  num,
  pinLoadGenerator,
  report,
  type Row,
  row,
  sleep,
  spawnServer,
  type Stats,
  stats,
  tempDir,
} from "./common.ts";
import { Budget, call, openConsoleStream, OverLimit, Probe, sendAll } from "./http.ts";
import {
  customerValues,
  exactPosition,
  largest,
  locationBatches,
  maxAbsDiff,
} from "./portfolio.ts";
import {
  type App,
  bareList,
  BATCH,
  type DayTimes,
  openPosition,
  REGION,
  register,
  runDay,
  startApp,
} from "./rig.ts";

const PART = "million";
const N = num("BENCH_MILLION_N", 1_000_000);
const SMALL_N = num("BENCH_MILLION_SMALL_N", 100_000);
const CUSTOMERS = Math.min(N, num("BENCH_MILLION_CUSTOMERS", 10_000));
/** Customer forecasts of the small run: by default the same share as in the main run. */
const SMALL_CUSTOMERS = Math.min(
  SMALL_N,
  num("BENCH_MILLION_SMALL_CUSTOMERS", Math.round((CUSTOMERS * SMALL_N) / N)),
);
const DAYS = Math.max(3, num("BENCH_MILLION_DAYS", 10));
const CONCURRENCY = num("BENCH_MILLION_CONCURRENCY", 4);
const PROBE_MS = num("BENCH_MILLION_PROBE_MS", 20);
const BUDGET_S = num("BENCH_MILLION_BUDGET_S", 840);
const STEP_LIMIT_MS = num("BENCH_MILLION_STEP_LIMIT_S", 180) * 1000;
/** RSS settle window after each day (ms); the lowest sample counts. */
const SETTLE_MS = num("BENCH_MILLION_SETTLE_MS", 3000);
/**
 * Settle window after the first and the last day (ms): long enough for V8's memory reducer
 * (v8/src/heap/memory-reducer.cc: kLongDelayMs 8000, then up to two more GCs 0.5 s apart).
 */
const GOAL_SETTLE_MS = num("BENCH_MILLION_GOAL_SETTLE_MS", 12_000);
/** Left for the final bare list and the clean-up: about a minute at 1,000,000. */
const RESERVE_MS = Math.max(20_000, (N / 1_000_000) * 60_000);
const WARM_BATCHES = 4;
/** Event ticker interval during a pass (ms) and the silence goal of the live stream (ms). */
const TICK_MS = 250;
const SILENCE_GOAL_MS = 1000;
const MiB = 2 ** 20;

/** Pooled over every watched pass: probe latencies, ticker events, longest silence. */
interface Watch {
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
const newWatch = (): Watch => ({
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
const watched = ({ tick, ...w }: Watch) => ({
  ...w,
  health: stats(w.health),
  status: stats(w.status),
  tickLatency: stats(tick),
});
type Watched = ReturnType<typeof watched>;

/**
 * Opens a console on the live stream, then starts open-loop probes of `/health` and the status
 * and an event ticker (`POST /v1/console/stop`); the returned function stops them and pools.
 */
async function watchPass(app: App, w: Watch): Promise<() => Promise<void>> {
  const console_ = await openConsoleStream(app.url, app.proc);
  await sleep(300);
  const t0 = performance.now();
  const probe = (path: string, o: { method?: string; every?: number } = {}) =>
    new Probe(`${app.url}${path}`, { every: PROBE_MS, headers: app.procAuth, ...o }).start();
  const health = probe("/health"), status = probe("/v1/console/status");
  const ticker = probe("/v1/console/stop", { method: "POST", every: TICK_MS });
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
    w.health.push(...health.latencies);
    w.status.push(...status.latencies);
    w.tick.push(...ticker.latencies);
    w.failures += health.failures + status.failures + ticker.failures;
    w.ticks += ticker.sent;
    w.tickEvents += ticks();
    w.events += console_.events.length;
    w.passS += (t1 - t0) / 1000;
    w.passes++;
  };
}

/** Everything a run measured; a field is missing when its phase did not get that far. */
interface Results {
  small?: { forecast: number; aggregate: number; base?: { s: number } };
  bareReg?: { s: number; warmS: number };
  reg?: { s: number; warmS: number };
  counted: number;
  idle?: Watched;
  busy?: Watched;
  rssIdle?: number;
  days: { day: string; times: DayTimes; rss: number; rssShort: number }[];
  hwmReset?: boolean;
  peakRss?: number;
  hwm?: number;
  exact?: { diff: number; profileOnly: number; largest: number; days: string[]; replaced: number };
  overview?: Stats & { days: number; listed: number };
  base?: { s: number; n: number; from: string };
  kvPaths: string[];
  stoppedEarly?: string;
  failures: string[];
}

/** The small run: `SMALL_N` locations, a warm-up day and a measured forecast + aggregate. */
async function smallRun(days: string[], budget: Budget, r: Results): Promise<void> {
  const dir = await tempDir("bench-million-small-");
  const app = await startApp(dir.path);
  try {
    await register(app, locationBatches(SMALL_N, BATCH), CONCURRENCY, budget.limit(300_000));
    const o = {
      n: SMALL_N,
      customers: SMALL_CUSTOMERS,
      concurrency: CONCURRENCY,
      limitMs: () => budget.limit(STEP_LIMIT_MS, RESERVE_MS),
      through: "aggregate" as const,
    };
    await runDay(app, days[0], o);
    const { times } = await runDay(app, days[1], o);
    r.small = { forecast: times.forecast, aggregate: times.aggregate };
    await app.server.stop();
    r.small.base = await bareList(app.kvPath, budget.limit(60_000));
  } finally {
    await app.stop();
    await dir.remove();
  }
}

/** Registration of the N locations: to the bare store server, then to the app (returned). */
async function registration(budget: Budget, dir: string, r: Results): Promise<App> {
  const bodies = locationBatches(N, BATCH);
  const [warm, measured] = [bodies.slice(0, WARM_BATCHES), bodies.slice(WARM_BATCHES)];
  r.counted = Math.max(0, N - WARM_BATCHES * BATCH);
  const limitMs = () => budget.limit(600_000, RESERVE_MS);
  const env = { BARE_MODE: "store", KV_PATH: `${dir}/bare.kv` };
  const bare = await spawnServer("bench/servers/bare.ts", env, [], { pinned: true });
  try {
    const o = { concurrency: CONCURRENCY, method: "PUT" };
    const warmS = await sendAll(`${bare.url}/`, warm, { ...o, limitMs: limitMs() });
    r.bareReg = { warmS, s: await sendAll(`${bare.url}/`, measured, { ...o, limitMs: limitMs() }) };
  } finally {
    await bare.stop();
  }
  const app = await startApp(`${dir}/app`);
  r.kvPaths = [app.kvPath, env.KV_PATH];
  try {
    const warmS = await register(app, warm, CONCURRENCY, limitMs());
    r.reg = { warmS, s: await register(app, measured, CONCURRENCY, limitMs()) };
    console.log(`registration: app ${r.reg.s.toFixed(2)} s, bare ${r.bareReg.s.toFixed(2)} s`);
    return app;
  } catch (err) {
    await app.stop();
    throw err;
  }
}

/** The idle baseline: the pass watch for 10 s on the idle app, after a discarded second. */
async function idleWatch(app: App): Promise<Watched> {
  const warm = await watchPass(app, newWatch());
  await sleep(1000);
  await warm();
  const w = newWatch();
  const done = await watchPass(app, w);
  await sleep(10_000);
  await done();
  return watched(w);
}

/** p99 of GET /v1/console/delivery-days (200 sequential, after 20 discarded) with `days` days. */
async function overview(app: App, days: number) {
  const get = () => call(`${app.url}/v1/console/delivery-days`, { headers: app.procAuth });
  const listed =
    (JSON.parse((await get()).text) as { delivery_days: unknown[] }).delivery_days.length;
  for (let i = 0; i < 20; i++) await get();
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) ms.push((await get()).ms);
  return { days, listed, ...stats(ms) };
}

/** Registration and the days of the main run. */
async function mainRun(days: string[], budget: Budget, dir: string, r: Results): Promise<void> {
  const app = await registration(budget, dir, r);
  try {
    await sleep(2000); // let the app (and this process) settle after registration
    r.idle = await idleWatch(app);
    await app.rss.fresh();
    r.rssIdle = app.rss.rss;
    const w = newWatch();
    let lastDayMs = 0;
    for (let k = 0; k < DAYS; k++) {
      if (k > 0 && budget.left() < lastDayMs * 1.3 + RESERVE_MS) {
        r.stoppedEarly = `${k} of ${DAYS} days fit the time budget of ${BUDGET_S} s`;
        break;
      }
      const t0 = performance.now();
      let after: (() => Promise<void>) | undefined;
      const around = k === 1
        ? {
          before: async () => void (r.hwmReset = await app.rss.mark()),
          after: async () => {
            await app.rss.fresh();
            [r.peakRss, r.hwm] = [app.rss.peak, app.rss.hwm];
          },
        }
        : k >= 2
        ? {
          before: async () => void (after = await watchPass(app, w)),
          after: async () => {
            await after!();
            r.busy = watched(w);
          },
        }
        : undefined;
      const limitMs = () => budget.limit(STEP_LIMIT_MS, RESERVE_MS);
      const opts = { n: N, customers: CUSTOMERS, concurrency: CONCURRENCY, limitMs, around };
      const { times, customerBodies } = await runDay(app, days[k], opts);
      const entry = { day: days[k], times, rss: Infinity, rssShort: Infinity };
      r.days.push(entry);
      if (k < 2) {
        const exact = exactPosition(N, customerValues(customerBodies), days[k], REGION);
        const got = await openPosition(app, days[k]);
        const x = r.exact ??= { diff: 0, profileOnly: Infinity, largest: 0, days: [], replaced: 0 };
        x.diff = Math.max(x.diff, maxAbsDiff(got, exact.withCustomer));
        x.profileOnly = Math.min(x.profileOnly, maxAbsDiff(got, exact.profileOnly));
        x.largest = Math.max(x.largest, largest(exact.withCustomer));
        x.days.push(days[k]);
        x.replaced = exact.replaced;
      }
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
      console.log(
        `day ${k + 1} ${days[k]}: ${steps} s; app RSS ${(entry.rss / MiB).toFixed(0)} MiB`,
      );
    }
  } finally {
    await app.stop();
  }
}

const nan = (n: number | undefined) => n ?? NaN;
const s2 = (s: number) => `${s.toFixed(2)} s`;
const at1M = N === 1_000_000 ? "" : " (goal at 1,000,000)";

/** The part's rows, goal rows in the issue's order (an unmeasured goal: no value, not met). */
function buildRows(r: Results): Row[] {
  const n = N.toLocaleString("en-US");
  const d2 = r.days[1];
  const pass = d2 ? d2.times.forecast + d2.times.aggregate : NaN;
  const baseName = `bare kv.list of the ${n} market-location records (${r.base?.from ?? "—"})`;
  const rows = [
    row(PART, `forecast + aggregate a day of ${n} locations (warm)`, pass, "s", {
      base: [baseName, r.base?.s],
      goal: [`< 10 s${at1M}`, pass < 10],
      note: d2
        ? `forecast ${s2(d2.times.forecast)}, aggregate ${s2(d2.times.aggregate)}`
        : "not measured",
    }),
  ];
  const peak = Math.max(nan(r.peakRss), r.hwmReset ? nan(r.hwm) : 0);
  rows.push(row(PART, "peak RSS of the app process during that pass", peak / MiB, "MiB", {
    base: ["app RSS idle before the first day", r.rssIdle && r.rssIdle / MiB],
    goal: [`< 1024 MiB${at1M}`, peak < 1024 * MiB],
    note: `VmRSS every 20 ms: max ${(nan(r.peakRss) / MiB).toFixed(0)} MiB; VmHWM ` +
      `${(nan(r.hwm) / MiB).toFixed(0)} MiB (${
        r.hwmReset ? "reset before the pass" : "NOT reset"
      })`,
  }));
  const small = SMALL_N === N && d2 ? { ...d2.times, base: r.base } : r.small;
  if (SMALL_N > 0) {
    const s = small ? small.forecast + small.aggregate : NaN;
    const sn = SMALL_N.toLocaleString("en-US");
    rows.push(row(PART, `forecast + aggregate a day of ${sn} locations (warm)`, s, "s", {
      base: [`bare kv.list of the ${sn} records`, small?.base?.s],
      goal: [`< 1 s${SMALL_N === 100_000 ? "" : " (goal at 100,000)"}`, s < 1],
      note: small ? `${SMALL_CUSTOMERS} customer forecasts` : "not measured",
    }));
  }
  const x = r.exact;
  rows.push(
    row(
      PART,
      "open position vs exact per-location sum, max |Δ| per quarter-hour",
      nan(x?.diff),
      "MW",
      {
        base: ["largest |exact| quarter-hour value", x?.largest],
        goal: ["≤ 0.001 MW", x ? x.diff <= 0.001 : false],
        note: x
          ? `days ${
            x.days.join(", ")
          }, ${x.replaced} customer forecasts; the profile-only sum is off by ${
            x.profileOnly.toFixed(3)
          } MW`
          : "not measured",
      },
    ),
  );
  const reg = r.reg && r.bareReg ? [r.counted / r.reg.s, r.counted / r.bareReg.s] : [NaN, NaN];
  rows.push(
    row(
      PART,
      `registration: PUT /v1/market-locations, ${n} in batches of 500`,
      reg[0],
      "locations/s",
      {
        base: ["bare parse+store (bench/servers/bare.ts store), same batches", reg[1]],
        goal: ["≥ 0.5× bare", reg[0] / reg[1] >= 0.5],
      },
    ),
  );
  const idle = r.idle?.health.p99;
  const p99 = (metric: string, s: Stats | undefined, note: string) =>
    row(PART, metric, nan(s?.p99), "ms", {
      base: ["GET /health p99, idle app", idle],
      goal: ["< 50 ms", s ? s.p99 < 50 : false],
      note,
    });
  const ov = r.overview;
  rows.push(p99(
    `GET /v1/console/delivery-days, ${ov?.days ?? 7} days at ${n} locations, p99`,
    ov,
    ov
      ? `${ov.listed} days listed; p50 ${ov.p50.toFixed(2)} ms, max ${ov.max.toFixed(2)} ms`
      : "not measured",
  ));
  const b = r.busy;
  const during = `during ${n}-location forecast + aggregate passes`;
  const probeNote = (s?: Stats) =>
    b && s
      ? `${s.n} requests over ${b.passes} passes (${b.passS.toFixed(1)} s), p50 ${
        s.p50.toFixed(2)
      } ms, ` +
        `max ${s.max.toFixed(0)} ms; ${b.failures} failed`
      : "not measured";
  rows.push(p99(`GET /health p99 ${during}`, b?.health, probeNote(b?.health)));
  rows.push(p99(`GET /v1/console/status p99 ${during}`, b?.status, probeNote(b?.status)));
  rows.push(row(PART, `console live stream ${during}: longest silence`, nan(b?.silenceMs), "ms", {
    base: ["same watch on the idle app", r.idle?.silenceMs],
    goal: [
      `every event received, silence < ${SILENCE_GOAL_MS} ms`,
      b ? b.tickEvents >= b.ticks && b.silenceMs < SILENCE_GOAL_MS : false,
    ],
    note: b
      ? `${b.tickEvents}/${b.ticks} ticker events received, ${b.events} events in all`
      : "not measured",
  }));
  const d1 = r.days[0];
  const sum = (t: DayTimes) => Object.values(t).reduce((a, v) => a + (v || 0), 0);
  const e2e = d1 && r.reg ? r.reg.warmS + r.reg.s + sum(d1.times) : NaN;
  const bareE2e = r.bareReg && r.base ? r.bareReg.warmS + r.bareReg.s + r.base.s : undefined;
  rows.push(
    row(PART, `end to end, ${n}-location day: registration → … → submit (files, ESS)`, e2e, "s", {
      base: ["bare registration + bare kv.list", bareE2e],
      goal: [`< 30 s${at1M}`, e2e < 30],
      note: d1
        ? Object.entries(d1.times).map(([k, v]) => `${k} ${s2(v)}`).join(", ")
        : "not measured",
    }),
  );
  const [first, last] = [r.days[0]?.rss, r.days[r.days.length - 1]?.rss];
  const mib = (f: "rss" | "rssShort") => r.days.map((d) => (d[f] / MiB).toFixed(0)).join(" → ");
  rows.push(
    row(
      PART,
      `app RSS after day ${r.days.length} of ${DAYS} (one process)`,
      nan(last) / MiB,
      "MiB",
      {
        base: ["app RSS after day 1", first && first / MiB],
        goal: [
          `≤ 1.10× after ${DAYS} days`,
          r.days.length >= DAYS && first ? last / first <= 1.1 : false,
        ],
        note: `settled: ${mib("rss")} MiB; lowest in the first 3 s: ${
          mib("rssShort")
        } MiB; seconds per day ${r.days.map((d) => sum(d.times).toFixed(1)).join(", ")}${
          r.stoppedEarly ? `; STOPPED EARLY: ${r.stoppedEarly}` : ""
        }`,
      },
    ),
  );
  return [...rows, ...r.failures.map((f) => failedRow(PART, f))];
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  console.log(
    `${await pinLoadGenerator()}; N ${N}, small ${SMALL_N}, ${CUSTOMERS} customers, ${DAYS} days`,
  );
  const budget = new Budget(BUDGET_S);
  const first = nextOpenDay(Date.now() + 3_600_000); // no gate closes while the run lasts
  const days = Array.from({ length: DAYS }, (_, i) => addDays(first, i));
  const r: Results = { days: [], counted: 0, kvPaths: [], failures: [] };
  const dir = await tempDir("bench-million-");
  const attempt = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      const msg = `${what}: ${(err as Error).message}`;
      console.error(err instanceof OverLimit ? `over limit: ${msg}` : `FAILED ${msg}`);
      r.failures.push(msg);
    }
  };
  try {
    if (SMALL_N > 0 && SMALL_N !== N) await attempt("small run", () => smallRun(days, budget, r));
    await attempt("main run", () => mainRun(days, budget, dir.path, r));
    for (const [i, path] of r.kvPaths.entries()) {
      if (r.base) continue;
      await attempt("bare kv.list", async () => {
        const b = await bareList(path, budget.limit(RESERVE_MS * 2));
        if (b.n === N) r.base = { ...b, from: i === 0 ? "app's KV" : "bare KV" };
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
