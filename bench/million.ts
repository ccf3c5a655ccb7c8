/**
 * Issue "a million market locations" — the bridge at 1,000,000 market locations, everything
 * through the real app over HTTP in its own process (`bench/servers/app.ts`, temp-file KV, rate
 * limit off, pinned to core 0; this process — the load generator: HTTP clients, probes, the
 * console stream reader, the RSS sampler — pinned to core 1 with `taskset`; unpinned with a
 * warning where that is not possible). The portfolio is `bench/portfolio.ts` (`benchLocation`:
 * ten BDEW profiles over the four German control areas). Measured, in this order:
 *
 * 1. small run — a second app with `BENCH_MILLION_SMALL_N` (100,000) locations and
 *    `BENCH_MILLION_SMALL_CUSTOMERS` customer forecasts (default: the same share as below,
 *    1,000): forecast + aggregate of one day after a warm-up day (goal < 1 s; baseline a bare
 *    `kv.list` of its market-location records, as for N below);
 * 2. registration — the `PUT /v1/market-locations` batches of 500 for all N locations, 4 clients:
 *    first to the bare server (`bench/servers/bare.ts`, `BARE_MODE=store`: parse + one atomic
 *    write per batch), then to the app; the first 4 batches of each are an untimed warm-up
 *    (goal: app ≥ 0.5× bare, locations/s);
 * 3. idle baseline — 2 s after registration, for 10 s on the idle app, after a discarded second,
 *    the watch that later runs during the passes (`bench/million_watch.ts`): open-loop probes of
 *    GET /health and GET /v1/console/status (one request per route every
 *    `BENCH_MILLION_PROBE_MS` (20) ms whether or not the last one answered) and a console on
 *    the live event stream fed by an event ticker (`POST /v1/console/stop` every 250 ms: the
 *    orchestrator is stopped anyway; each call appends `orchestrator_stopped` and `api_call`);
 * 4. `BENCH_MILLION_DAYS` (10) delivery days in the one app process, each end to end: ingest
 *    `BENCH_MILLION_CUSTOMERS` (10,000) customer forecasts (`POST /v1/forecasts`, 500 a batch) →
 *    forecast → aggregate → publish → submit (files channel, ESS documents, local outbox):
 *    - day 1 is the end-to-end row (registration included; goal < 30 s; baseline the bare
 *      registration plus the bare `kv.list` below) and the warm-up of the forecast + aggregate
 *      pass;
 *    - day 2 is the forecast + aggregate row (goal < 10 s; baseline: a bare `kv.list` of the N
 *      market-location records of the app's KV file, the floor of the old per-location method,
 *      measured at the end with the app stopped, after a warm-up list of 100,000) and the peak
 *      RSS of the app process during the pass (VmRSS sampled every 20 ms from /proc, VmHWM
 *      reset before the pass where the kernel allows; goal < 1 GiB; baseline the idle RSS);
 *    - days 1 and 2 are checked for exactness: the open position the app answers
 *      (`GET /v1/delivery-days/{day}/open-position`) against the exact per-location sum computed
 *      here (`bench/million_exact.ts`: annual kWh × `profileShape`, customer forecasts replacing
 *      their location's value), max |Δ| per quarter-hour ≤ 0.001 MW;
 *    - during the forecast + aggregate of days 3 to the last the watch of 3. runs again (a
 *      console opened before each pass), pooled over those passes: p99 of each probe (goal
 *      < 50 ms, baseline idle GET /health p99) and the longest silence on the live stream
 *      during a pass (goal: every ticker event received, no silence of 1 s or more; baseline
 *      the longest silence on the idle app);
 *    - after day 7, `GET /v1/console/delivery-days` (7 days at N) p99 of 200 sequential requests
 *      after 20 discarded (goal < 50 ms; baseline idle GET /health p99);
 *    - the app's settled VmRSS after each day (the lowest over 3 s, sampled every 100 ms; over
 *      12 s after day 1 and day 10, see {@link GOAL_SETTLE_MS}); goal: after day 10 within 10 %
 *      of after day 1 (the 3-s figures of both are printed beside).
 *
 * Bounded: every request has a limit (`BENCH_MILLION_STEP_LIMIT_S`, 180 s; registration 600 s),
 * the whole part a budget (`BENCH_MILLION_BUDGET_S`, 840 s, under `run.ts`'s 900 s per part):
 * a step past its limit, or days that no longer fit the budget, are reported as missed goals.
 *
 * Env: `BENCH_MILLION_N` (1000000), `BENCH_MILLION_SMALL_N` (100000; 0 skips the small run, equal
 * to N takes its row from the main run), `BENCH_MILLION_SMALL_CUSTOMERS`,
 * `BENCH_MILLION_CUSTOMERS` (10000), `BENCH_MILLION_DAYS` (10), `BENCH_MILLION_CONCURRENCY` (4),
 * `BENCH_MILLION_SETTLE_MS` (3000), `BENCH_MILLION_GOAL_SETTLE_MS` (12000),
 * `BENCH_MILLION_PROBE_MS` (20), `BENCH_MILLION_BUDGET_S` (840), `BENCH_MILLION_STEP_LIMIT_S`
 * (180), `BENCH_PIN=0` (do not pin).
 *
 * Run alone: `deno run -A bench/million.ts` (quick: `BENCH_MILLION_N=20000
 * BENCH_MILLION_SMALL_N=5000 deno run -A bench/million.ts`), or `deno task bench -- million`.
 * @module
 */
import { addDays, nextOpenDay } from "../lib/domain/delivery_day.ts";
import { report, type Row, sleep, spawnServer, tempDir } from "./common.ts";
import { locationBatches } from "./portfolio.ts";
import {
  type App,
  bareList,
  BATCH,
  openPosition,
  REGION,
  register,
  runDay,
  startApp,
} from "./million_app.ts";
import { customerValues, exactPosition, largest, maxAbsDiff } from "./million_exact.ts";
import { Budget, OverLimit, pinLoadGenerator, sendAll } from "./million_http.ts";
import { buildRows, type Results } from "./million_rows.ts";
import { idleWatch, newWatch, overview, watched, watchPass } from "./million_watch.ts";

const env = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);
/**
 * How long the RSS settles after each day (ms, `BENCH_MILLION_SETTLE_MS`); the lowest sample
 * counts. Where the app's last garbage collection happened to stand decides a short window.
 */
const SETTLE_MS = Number(Deno.env.get("BENCH_MILLION_SETTLE_MS") ?? 3000);
/**
 * The settle window of the first and the last day, the two the memory goal compares (ms,
 * `BENCH_MILLION_GOAL_SETTLE_MS`): 12 s, long enough for V8's memory reducer, which collects an
 * isolate that stopped allocating 8 s after its last full collection and then up to twice more
 * 0.5 s apart (v8/src/heap/memory-reducer.cc: kLongDelayMs 8000, kShortDelayMs 500,
 * kMaxNumberOfGCs 3) — so the figures are retained memory, not garbage not yet collected.
 */
const GOAL_SETTLE_MS = Number(Deno.env.get("BENCH_MILLION_GOAL_SETTLE_MS") ?? 12_000);
const N = env("BENCH_MILLION_N", 1_000_000);
const SMALL_N = env("BENCH_MILLION_SMALL_N", 100_000);
const CUSTOMERS = Math.min(N, env("BENCH_MILLION_CUSTOMERS", 10_000));
/** Customer forecasts of the small run: by default the same share as in the main run. */
const SMALL_CUSTOMERS = Math.min(
  SMALL_N,
  env("BENCH_MILLION_SMALL_CUSTOMERS", Math.round((CUSTOMERS * SMALL_N) / N)),
);
const DAYS = Math.max(3, env("BENCH_MILLION_DAYS", 10));
const CONCURRENCY = env("BENCH_MILLION_CONCURRENCY", 4);
const PROBE_MS = env("BENCH_MILLION_PROBE_MS", 20);
const BUDGET_S = env("BENCH_MILLION_BUDGET_S", 840);
const STEP_LIMIT_MS = env("BENCH_MILLION_STEP_LIMIT_S", 180) * 1000;
const REGISTER_LIMIT_MS = 600_000;
/** Left for the final bare list and the clean-up: about a minute at 1,000,000. */
const RESERVE_MS = Math.max(20_000, (N / 1_000_000) * 60_000);
const WARM_BATCHES = 4;
/** Seconds of idle probing (the baseline of the p99 rows). */
const IDLE_S = 10;

/** The small run: `SMALL_N` locations, a warm-up day and a measured forecast + aggregate. */
async function smallRun(days: string[], budget: Budget, r: Results): Promise<void> {
  const dir = await tempDir("bench-million-small-");
  const app = await startApp(dir.path);
  let stopped = false;
  try {
    await register(app, locationBatches(SMALL_N, BATCH), CONCURRENCY, budget.limit(300_000));
    const run = (day: string) =>
      runDay(app, day, {
        n: SMALL_N,
        customers: SMALL_CUSTOMERS,
        concurrency: CONCURRENCY,
        limitMs: () => budget.limit(STEP_LIMIT_MS, RESERVE_MS),
        through: "aggregate",
      });
    await run(days[0]);
    const { times } = await run(days[1]);
    r.small = {
      n: SMALL_N,
      customers: SMALL_CUSTOMERS,
      forecast: times.forecast,
      aggregate: times.aggregate,
    };
    await app.stop();
    stopped = true;
    r.small.base = await bareList(app.kvPath, budget.limit(60_000));
    console.log(
      `small run, ${SMALL_N} locations: forecast ${times.forecast.toFixed(2)} s + aggregate ${
        times.aggregate.toFixed(2)
      } s; bare kv.list ${r.small.base.s.toFixed(2)} s`,
    );
  } finally {
    if (!stopped) await app.stop();
    await dir.remove();
  }
}

/**
 * Registration of the N locations: to the bare store server, then to the app (started here and
 * returned; the request bodies are garbage once this returns).
 */
async function registration(budget: Budget, dir: string, r: Results): Promise<App> {
  const bodies = locationBatches(N, BATCH);
  const warm = bodies.slice(0, WARM_BATCHES);
  const measured = bodies.slice(WARM_BATCHES);
  const counted = N - warm.reduce((a, b) => a + (JSON.parse(b).market_locations.length), 0);
  const regLimit = () => budget.limit(REGISTER_LIMIT_MS, RESERVE_MS);
  const env = { BARE_MODE: "store", KV_PATH: `${dir}/bare.kv` };
  const bare = await spawnServer("bench/servers/bare.ts", env, [], { pinned: true });
  try {
    const o = { headers: {}, concurrency: CONCURRENCY, method: "PUT" };
    const warmS = await sendAll(`${bare.url}/`, warm, { ...o, limitMs: regLimit() });
    const s = await sendAll(`${bare.url}/`, measured, { ...o, limitMs: regLimit() });
    r.bareReg = { s, warmS, counted };
    console.log(`bare parse+store: ${counted} locations in ${s.toFixed(2)} s`);
  } finally {
    await bare.stop();
  }
  r.bareKvPath = env.KV_PATH;
  const app = await startApp(`${dir}/app`);
  r.appKvPath = app.kvPath;
  try {
    const warmS = await register(app, warm, CONCURRENCY, regLimit());
    r.reg = { warmS, s: NaN, counted };
    r.reg.s = await register(app, measured, CONCURRENCY, regLimit());
    console.log(`app registration: ${counted} locations in ${r.reg.s.toFixed(2)} s`);
    return app;
  } catch (err) {
    await app.stop();
    throw err;
  }
}

/** Registration and the days of the main run. */
async function mainRun(days: string[], budget: Budget, dir: string, r: Results): Promise<void> {
  const app = await registration(budget, dir, r);
  try {
    await sleep(2000); // let the app (and this process) settle after registration
    r.idle = await idleWatch(app, IDLE_S, PROBE_MS);
    await app.rss.fresh();
    r.rssIdle = app.rss.rss;
    console.log(
      `idle: health p50 ${r.idle.health.p50.toFixed(2)} ms, p99 ${
        r.idle.health.p99.toFixed(2)
      } ms; status p99 ${r.idle.status.p99.toFixed(2)} ms; app RSS ${
        (r.rssIdle / 2 ** 20).toFixed(0)
      } MiB`,
    );
    const w = newWatch();
    let lastDayMs = 0;
    for (let k = 0; k < DAYS; k++) {
      const day = days[k];
      if (k > 0 && budget.left() < lastDayMs * 1.3 + RESERVE_MS) {
        r.stoppedEarly = `${k} of ${DAYS} days fit the time budget of ${BUDGET_S} s`;
        console.error(`stopping: ${r.stoppedEarly}`);
        break;
      }
      const t0 = performance.now();
      let after: (() => Promise<void>) | undefined;
      const around = k === 1
        ? {
          before: async () => {
            r.hwmReset = await app.rss.mark();
          },
          after: async () => {
            await app.rss.fresh();
            r.peakRss = app.rss.peak;
            r.hwm = app.rss.hwm;
          },
        }
        : k >= 2
        ? {
          before: async () => {
            after = await watchPass(app, w, PROBE_MS);
          },
          after: async () => {
            await after!();
            r.busy = watched(w);
          },
        }
        : undefined;
      const { times, customerBodies } = await runDay(app, day, {
        n: N,
        customers: CUSTOMERS,
        concurrency: CONCURRENCY,
        limitMs: () => budget.limit(STEP_LIMIT_MS, RESERVE_MS),
        around,
      });
      const entry: Results["days"][number] = { day, times, rss: NaN, rssShort: NaN };
      r.days.push(entry);
      if (k < 2) {
        const t = performance.now();
        const exact = exactPosition(N, customerValues(customerBodies), day, REGION);
        const got = await openPosition(app, day);
        const x = r.exact ??= { diff: 0, profileOnly: Infinity, largest: 0, days: [] };
        x.diff = Math.max(x.diff, maxAbsDiff(got, exact.withCustomer));
        x.profileOnly = Math.min(x.profileOnly, maxAbsDiff(got, exact.profileOnly));
        x.largest = Math.max(x.largest, largest(exact.withCustomer));
        x.days.push(day);
        x.replaced = exact.replaced;
        console.log(
          `exactness ${day}: max |Δ| ${maxAbsDiff(got, exact.withCustomer)} MW ` +
            `(${((performance.now() - t) / 1000).toFixed(1)} s to check)`,
        );
      }
      // The settled RSS: the lowest VmRSS over the settle window after the day (sampled every
      // 100 ms), so that where the app's garbage collection happens to stand does not decide the
      // figure; `rssShort` is the lowest over the first SETTLE_MS of it.
      const goalDay = k === 0 || k === DAYS - 1;
      const window = goalDay ? Math.max(GOAL_SETTLE_MS, SETTLE_MS) : SETTLE_MS;
      entry.rss = entry.rssShort = Infinity;
      for (let waited = 0; waited < window; waited += 100) {
        await sleep(100);
        await app.rss.fresh();
        entry.rss = Math.min(entry.rss, app.rss.rss);
        if (waited < SETTLE_MS) entry.rssShort = Math.min(entry.rssShort, app.rss.rss);
      }
      if (k === Math.min(6, DAYS - 1)) r.overview = await overview(app, k + 1);
      lastDayMs = performance.now() - t0;
      console.log(
        `day ${k + 1} ${day}: ${
          Object.entries(times).map(([s, v]) => `${s} ${v.toFixed(2)}`).join(", ")
        } s; app RSS ${(entry.rss / 2 ** 20).toFixed(0)} MiB`,
      );
    }
  } finally {
    await app.stop();
  }
}

export async function main(): Promise<Row[]> {
  const placement = await pinLoadGenerator();
  console.log(
    `${placement}; N ${N}, small ${SMALL_N}, ${CUSTOMERS} customer forecasts a day, ` +
      `${DAYS} days, budget ${BUDGET_S} s`,
  );
  const budget = new Budget(BUDGET_S);
  // An hour's margin: no day closes its gate while the run lasts.
  const first = nextOpenDay(Date.now() + 3_600_000);
  const days = Array.from({ length: DAYS }, (_, i) => addDays(first, i));
  const r: Results = { n: N, smallN: SMALL_N, customers: CUSTOMERS, plannedDays: DAYS, days: [] };
  const dir = await tempDir("bench-million-");
  const attempt = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      const msg = `${what}: ${(err as Error).message}`;
      console.error(err instanceof OverLimit ? `over limit: ${msg}` : `FAILED ${msg}`);
      r.failures = [...(r.failures ?? []), msg];
    }
  };
  try {
    if (SMALL_N > 0 && SMALL_N !== N) await attempt("small run", () => smallRun(days, budget, r));
    await attempt("main run", () => mainRun(days, budget, dir.path, r));
    for (const path of [r.appKvPath, r.bareKvPath]) {
      if (!path || r.base) continue;
      await attempt("bare kv.list", async () => {
        const b = await bareList(path, budget.limit(RESERVE_MS * 2));
        if (b.n === N) r.base = { ...b, from: path === r.appKvPath ? "app's KV" : "bare KV" };
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
