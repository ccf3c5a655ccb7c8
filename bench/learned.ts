/**
 * The `learned` part (issue 33; docs/benchmarks.md, docs/forecasting.md "In the service"), in
 * process on a temp-file KV: `BENCH_LEARNED_N` (10,000) metered market locations with 8 weeks and
 * 2 days of actuals (the OpenSTEF history, scaled differently per location) over
 * `BENCH_LEARNED_POINTS` (100) weather points. Measured:
 *
 * - the daily refit and forecast of all of them (yesterday's actuals and this morning's weather
 *   forecast arrived: every location is fitted again and its horizon forecast), against a bare
 *   read of the same actuals records in the same run; goal < 30 s and < 1 GiB peak RSS;
 * - the first refresh (nothing stored yet: every location fitted, 28 past days replayed within the
 *   budget), a refresh with nothing new (skipped by its stamp), one after a weather delivery for
 *   one point (its locations refitted);
 * - the pass for the rest of the portfolio: forecast and aggregate of one day at
 *   `BENCH_LEARNED_PROFILE_N` (100,000) profile locations in a store without metered locations
 *   (baseline) and beside the 10,000 with current learned forecasts.
 * @module
 */
import process from "node:process";
import { joinHistories, parseHistory } from "../lib/forecasting/backtest/history_csv.ts";
import { addDays, deliveryDay } from "../lib/domain/delivery_day.ts";
import { actualsKnownAt, localTimeOn } from "../lib/forecasting/local_days.ts";
import { aggregateDay } from "../lib/pipeline/aggregate.ts";
import { generateForecasts } from "../lib/pipeline/generate.ts";
import { ingestForecasts } from "../lib/pipeline/forecasts.ts";
import { markLearnedInputs } from "../lib/pipeline/learned_staleness.ts";
import { profileClasses } from "../lib/pipeline/master_data.ts";
import { actualsOfLocations, storeActuals } from "../lib/settlement/actuals_store.ts";
import { KEYS } from "../lib/store/keys.ts";
import { recordDeliveries } from "../lib/weather/points.ts";
import { storeWeather } from "../lib/weather/store.ts";
import { shiftedHistory } from "../dev/learned_history.ts";
import { num, report, type Row, row, tempDir } from "./common.ts";
import { AREAS, benchMalo, writeLocations } from "./portfolio.ts";

const PART = "33 learned forecasts";
const N = num("BENCH_LEARNED_N", 10_000);
const POINTS = num("BENCH_LEARNED_POINTS", 100);
const PROFILE_N = num("BENCH_LEARNED_PROFILE_N", 100_000);
/** Today of the daily refit; the history's 58 days end the day before. */
const TODAY = "2026-11-26";
const HISTORY_DAYS = 58;
const MiB = 1024 * 1024;
const QH = 900_000;

/** Runs `fn` while sampling this process's RSS; returns seconds and the peak RSS in MiB. */
async function measured<T>(fn: () => Promise<T>): Promise<{ s: number; peak: number; out: T }> {
  let peak = Deno.memoryUsage().rss;
  const timer = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 10);
  const t0 = performance.now();
  try {
    const out = await fn();
    return { s: (performance.now() - t0) / 1000, peak: 0, out };
  } finally {
    clearInterval(timer);
  }
}
/** {@link measured} with the peak RSS (MiB) and the CPU seconds of the process (every thread). */
async function timed<T>(fn: () => Promise<T>) {
  let peak = Deno.memoryUsage().rss;
  const timer = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 10);
  const cpu0 = process.cpuUsage();
  try {
    const m = await measured(fn);
    const cpu = process.cpuUsage(cpu0);
    return {
      ...m,
      peak: Math.max(peak, Deno.memoryUsage().rss) / MiB,
      cpu: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    clearInterval(timer);
  }
}

const metered = (i: number) => benchMalo(PROFILE_N + i);
const pointOf = (i: number) => `BENCH-${String(i % POINTS).padStart(4, "0")}`;
const first = addDays(TODAY, -HISTORY_DAYS);
const horizon = 7;
// The OpenSTEF history moved onto the bench's days (its last weeks end on the day after next).
const source = joinHistories(
  ["data/openstef/307-train-data.csv", "data/openstef/307-test-data.csv"].map((name) => ({
    name,
    history: parseHistory(Deno.readTextFileSync(name), name),
  })),
);
const weeks = Math.ceil(
  Temporal.PlainDate.from("2020-11-29").until(Temporal.PlainDate.from(addDays(TODAY, 9))).days /
    7,
);
const history = shiftedHistory(source, weeks, 1000, first, addDays(TODAY, 9));
const at = new Map(history.startMs.map((ms, r) => [ms, r]));

/** A day's actuals of every metered location (kWh), location `i` scaled by its own factor. */
function dayActuals(day: string) {
  const d = deliveryDay(day);
  const start = d.start.epochMilliseconds;
  const base = d.quarterHours.map((q) => {
    const r = at.get(q.epochMilliseconds);
    return r === undefined ? NaN : history.load[r] / 4;
  });
  return Array.from({ length: N }, (_, i) => ({
    owner: { kind: "market_location" as const, malo_id: metered(i) },
    start,
    kwh: base.map((v) => v * (0.05 + (i % 37) / 100)),
    where: day,
  }));
}

/** Weather of every point for the days `from` … `to`, received at `receivedMs`. */
async function weather(kv: Deno.Kv, from: string, to: string, receivedMs: number) {
  const start = deliveryDay(from).start.epochMilliseconds;
  const end = deliveryDay(to).end.epochMilliseconds;
  const n = (end - start) / QH;
  const pick = (col: number[], shift: number) =>
    Float64Array.from({ length: n }, (_, j) => {
      const r = at.get(start + j * QH);
      return r === undefined ? NaN : col[r] + shift;
    });
  for (let p = 0; p < POINTS; p++) {
    const point = pointOf(p);
    const values = {
      temperature_c: pick(history.temperatureC, (p % 5) / 5),
      ghi_w_m2: pick(history.ghiWm2, 0),
      wind_speed_m_s: pick(history.windSpeedMs, (p % 3) / 10),
    };
    const stored = await storeWeather(kv, [{ point, start, values }], receivedMs, "bench");
    const changed = stored.changed_points.length > 0;
    await recordDeliveries(kv, [{ point, fromMs: start, toMs: end, changed }], receivedMs, "bench");
  }
}

/** Profile locations 0 … PROFILE_N−1 and the metered ones, with the class table built. */
async function portfolio(kv: Deno.Kv, withMetered: boolean) {
  await writeLocations(kv, PROFILE_N);
  if (withMetered) {
    const stamp = new Date(Date.parse(`${first}T00:00:00Z`)).toISOString();
    for (let i = 0; i < N; i += 500) {
      const op = kv.atomic();
      for (let j = i; j < Math.min(N, i + 500); j++) {
        op.set(KEYS.marketLocation(metered(j)), {
          malo_id: metered(j),
          control_area: AREAS[j % AREAS.length],
          direction: "consumption",
          name: `metered ${j}`,
          weather_point: pointOf(j),
          holiday_region: "DE-NW",
          updated_at: stamp,
        });
      }
      await op.commit();
    }
  }
  await kv.set(KEYS.masterDataVersion, new Deno.KvU64(1n));
  await profileClasses(kv);
}

const rows: Row[] = [];
const tomorrow = addDays(TODAY, 1);
const step = (nowMs: number, horizonDays = horizon) => ({
  by: "bench",
  nowMs,
  region: "DE",
  learned: {
    horizonDays,
    gateClosureLocalTime: "12:00",
    kvPath: Deno.env.get("BENCH_LEARNED_THREADS") === "1" ? undefined : `${dir.path}/bridge.kv`,
  },
});
const aggregate = (kv: Deno.Kv, nowMs: number) =>
  aggregateDay(kv, tomorrow, { by: "bench", nowMs, activeAreas: AREAS, region: "DE" });

// The store with the metered locations.
const dir = await tempDir("bench-learned-");
const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
let profilePass: { s: number } | undefined;
try {
  const t0 = performance.now();
  await portfolio(kv, true);
  for (let day = first; day < addDays(TODAY, -2); day = addDays(day, 1)) {
    const series = dayActuals(day);
    for (let i = 0; i < N; i += 5000) {
      await storeActuals(kv, series.slice(i, i + 5000), "bench", actualsKnownAt(series[0].start));
    }
  }
  // The history's weather; each morning a weather forecast of the days ahead (05:00), the day
  // before's actuals (06:00), and the forecast step of every day of the horizon (06:30).
  const twoAgo = addDays(TODAY, -2), yesterday = addDays(TODAY, -1);
  await weather(kv, addDays(first, -1), twoAgo, localTimeOn(addDays(first, -1), "06:00"));
  console.log(
    `setup ${((performance.now() - t0) / 1000).toFixed(1)} s, RSS ${
      (Deno.memoryUsage().rss / MiB).toFixed(0)
    } MiB, heap ${(Deno.memoryUsage().heapUsed / MiB).toFixed(0)} MiB`,
  );
  /** The morning of `day`: weather forecast, the day before's actuals, and the steps at 06:30. */
  const morning = async (day: string, actuals: boolean) => {
    await weather(kv, day, addDays(day, 9), localTimeOn(day, "05:00"));
    if (actuals) {
      const series = dayActuals(addDays(day, -1));
      for (let i = 0; i < N; i += 5000) {
        await storeActuals(kv, series.slice(i, i + 5000), "bench", localTimeOn(day, "06:00"));
      }
    }
    const t = localTimeOn(day, "06:30");
    await markLearnedInputs(kv, { source: "actuals", market_locations: N }, { nowMs: t, by: "b" });
    return t;
  };
  // Two days before: the first refresh (every location; past days replayed within the budget).
  const firstRun = await timed(async () => {
    const t = await morning(twoAgo, false);
    const r = await generateForecasts(kv, twoAgo, step(t));
    for (let d = 1; d <= horizon; d++) await generateForecasts(kv, addDays(twoAgo, d), step(t));
    return r.learned_refresh!;
  });
  console.log(`first refresh ${firstRun.s.toFixed(1)} s`, firstRun.out);
  // Yesterday, then today: the daily refit, measured today (yesterday's day-ahead forecast is
  // stored then: no replay, as in a service that ran the day before).
  const then = await morning(yesterday, true);
  for (let d = 0; d <= horizon; d++) await generateForecasts(kv, addDays(yesterday, d), step(then));
  const now = await morning(TODAY, true);
  const daily = await timed(async () =>
    (await generateForecasts(kv, tomorrow, step(now))).learned_refresh!
  );
  console.log(`daily refit ${daily.s.toFixed(1)} s`, daily.out);
  // The floor: the same actuals records read bare (40 days of every location, one range a day).
  const ids = Array.from({ length: N }, (_, i) => metered(i));
  const mem = (what: string) =>
    console.log(
      `${what}: RSS ${(Deno.memoryUsage().rss / MiB).toFixed(0)} MiB, heap ${
        (Deno.memoryUsage().heapUsed / MiB).toFixed(0)
      } of ${(Deno.memoryUsage().heapTotal / MiB).toFixed(0)} MiB`,
    );
  mem("after the daily refit");
  const bare = await timed(async () => {
    for (let d = addDays(TODAY, -40); d < TODAY; d = addDays(d, 1)) {
      for (let i = 0; i < N; i += 250) await actualsOfLocations(kv, d, ids.slice(i, i + 250));
    }
  });
  mem("after the bare read");
  // The same refit with the horizon at 2 days (today, tomorrow, the day after: two fits a location).
  const short = await timed(async () =>
    (await generateForecasts(kv, tomorrow, step(now + 30_000, 2))).learned_refresh!
  );
  await generateForecasts(kv, tomorrow, step(now + 40_000)); // back to the week
  const quiet = await timed(async () =>
    (await generateForecasts(kv, tomorrow, step(now + 60_000))).learned_refresh!
  );
  await weather(kv, TODAY, addDays(TODAY, 9), now + 90_000); // same values: nothing new
  const onePoint = await timed(async () => {
    const d = deliveryDay(TODAY);
    const values = {
      temperature_c: new Float64Array(d.quarterHours.length).fill(3),
      ghi_w_m2: new Float64Array(d.quarterHours.length).fill(50),
      wind_speed_m_s: new Float64Array(d.quarterHours.length).fill(7),
    };
    await storeWeather(
      kv,
      [{ point: pointOf(0), start: d.start.epochMilliseconds, values }],
      now + 100_000,
      "bench",
    );
    await recordDeliveries(
      kv,
      [{ point: pointOf(0), fromMs: d.start.epochMilliseconds, toMs: d.end.epochMilliseconds }],
      now + 100_000,
      "bench",
    );
    await markLearnedInputs(kv, { source: "weather", points: [pointOf(0)] }, {
      nowMs: now + 100_000,
      by: "b",
    });
    return (await generateForecasts(kv, tomorrow, step(now + 120_000))).learned_refresh!;
  });
  const n = N.toLocaleString("en-US");
  rows.push(
    row(
      PART,
      `daily refit and forecast (the forecast step), ${n} metered locations (8 weeks + 2 days)`,
      daily.s,
      "s",
      {
        base: ["bare read of their last 40 days of actuals", bare.s],
        goal: ["< 30 s, < 1 GiB", daily.s < 30 && daily.peak < 1024],
        note: `${daily.out.computed} fitted, horizon ${horizon + 1} days; CPU ${
          daily.cpu.toFixed(1)
        } s (both threads; ${(daily.cpu / N * 1000).toFixed(1)} ms a location); load average ${
          Deno.loadavg()[0].toFixed(1)
        }; peak RSS ${daily.peak.toFixed(0)} MiB; first refresh ${firstRun.s.toFixed(1)} s (peak ${
          firstRun.peak.toFixed(0)
        } MiB, with the 28-day replays within their budget)`,
      },
    ),
  );
  rows.push(
    row(PART, `the same with orchestrator_horizon_days = 2 (${n} locations)`, short.s, "s", {
      base: ["the bare read", bare.s],
      goal: ["< 30 s, < 1 GiB", short.s < 30 && short.peak < 1024],
      note: `${short.out.computed} fitted, horizon 3 days; CPU ${short.cpu.toFixed(1)} s (${
        (short.cpu / N * 1000).toFixed(1)
      } ms a location); peak RSS ${short.peak.toFixed(0)} MiB`,
    }),
  );
  rows.push(
    row(PART, "forecast step with nothing new (the refresh skipped by its stamp)", quiet.s, "s", {
      note: `ran: ${quiet.out.ran}`,
    }),
  );
  rows.push(
    row(
      PART,
      `refresh after one point's weather (${Math.round(N / POINTS)} locations)`,
      onePoint.s,
      "s",
      {
        base: ["the daily refit of all", daily.s],
        note: `${onePoint.out.computed} fitted, ${onePoint.out.unchanged} unchanged`,
      },
    ),
  );
  // The pass of the profile portfolio beside them: forecast and aggregate of tomorrow.
  await generateForecasts(kv, tomorrow, step(now + 180_000)); // learned current
  profilePass = await timed(async () => {
    await generateForecasts(kv, tomorrow, step(now + 200_000));
    await aggregate(kv, now + 200_000);
  });
} finally {
  kv.close();
  await dir.remove();
}

// The same pass in a store of the profile locations alone, and in one where the metered locations
// have customer forecasts instead (as many forecasts read and summed as the learned ones).
{
  const pass = async (withCustomers: boolean) => {
    const d2 = await tempDir("bench-learned-profile-");
    const kv2 = await Deno.openKv(`${d2.path}/bridge.kv`);
    try {
      await portfolio(kv2, withCustomers);
      const now = localTimeOn(TODAY, "06:30");
      if (withCustomers) {
        const qh = deliveryDay(tomorrow).quarterHours.length;
        for (let i = 0; i < N; i += 500) {
          await ingestForecasts(
            kv2,
            Array.from({ length: Math.min(500, N - i) }, (_, k) => ({
              malo_id: metered(i + k),
              delivery_day: tomorrow,
              values: Array.from({ length: qh }, (_, q) => 10 + (q % 7)),
            })),
            "bench",
            now,
          );
        }
      }
      await generateForecasts(kv2, tomorrow, step(now));
      return await timed(async () => {
        await generateForecasts(kv2, tomorrow, step(now + 200_000));
        await aggregate(kv2, now + 200_000);
      });
    } finally {
      kv2.close();
      await d2.remove();
    }
  };
  const alone = await pass(false);
  const customers = await pass(true);
  const [p, n] = [PROFILE_N.toLocaleString("en-US"), N.toLocaleString("en-US")];
  rows.push(
    row(
      PART,
      `forecast + aggregate of a day, ${p} profile locations + ${n} learned`,
      profilePass!.s,
      "s",
      {
        base: [`the same with ${n} customer forecasts instead`, customers.s],
        note:
          `the learned forecasts are read and summed as customer forecasts are (their refresh is skipped: current); ${p} profile locations alone: ${
            alone.s.toFixed(3)
          } s`,
      },
    ),
  );
}

report(rows);
