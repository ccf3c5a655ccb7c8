/**
 * The learned forecast (docs/forecasting.md): no look-ahead, the labelled fallbacks with their
 * reasons, clock-change days (92 and 100 quarter-hours), the fit itself.
 */
import assert from "node:assert/strict";
import { addDays, deliveryDay, InvalidDeliveryDayError } from "../../lib/domain/delivery_day.ts";
import { UnknownHolidayRegionError } from "../../lib/domain/slp/day_type.ts";
import { type DayForecast, forecastDays } from "../../lib/forecasting/forecast.ts";
import type { LoadValue, WeatherValue } from "../../lib/forecasting/inputs.ts";
import { actualsKnownAt, localDay } from "../../lib/forecasting/local_days.ts";
import { fitRidge } from "../../lib/forecasting/ridge.ts";
import { NL_SITE, openstefInputs } from "../support/openstef.ts";

const DE_SITE = { latitude: 51.5, longitude: 7.5, holidayRegion: "DE-NW" };
const gate = (day: string) => deliveryDay(day).gateClosure.epochMilliseconds;

/** A deterministic pseudo-random stream in [0, 1) (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Synthetic weather and the load it drives on the Berlin days `first` … `last`. */
function synthetic(first: string, last: string, seed = 1) {
  const rnd = random(seed);
  const load: LoadValue[] = [];
  const weather: WeatherValue[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const d = localDay(day);
    const cloud = rnd();
    for (let i = 0; i < d.length; i++) {
      const startMs = d.startMs + i * 900_000;
      const slot = d.slots[i];
      const ghi = Math.max(0, Math.sin(Math.PI * (slot - 28) / 44)) * 500 * cloud;
      const wind = 2 + 10 * rnd();
      const base = 10 + 4 * Math.sin(2 * Math.PI * slot / 96) - (d.weekday >= 6 ? 3 : 0);
      const value = base - ghi / 100 - (wind > 8 ? 2 : 0) + (rnd() - 0.5);
      load.push({ startMs, value, knownAtMs: actualsKnownAt(startMs) });
      weather.push({
        startMs,
        temperatureC: 8 + 4 * rnd(),
        ghiWm2: ghi,
        windSpeedMs: wind,
        receivedAtMs: startMs - 2 * 86_400_000,
      });
    }
  }
  return { load, weather };
}

Deno.test("learned forecast: a future actual or later weather leaves an earlier cut-off's forecast as it was", () => {
  const { load, weather } = openstefInputs();
  const cutoffMs = gate("2020-11-10");
  const before = forecastDays({ cutoffMs, days: ["2020-11-10"], load, weather, site: NL_SITE });
  assert.equal(before[0].method, "learned");
  // Actuals of 2020-11-09 and -10 known exactly at the cut-off (not before it), every later actual
  // ten times as large, and weather of the day received one millisecond after the cut-off.
  const d9 = localDay("2020-11-09"), d10 = localDay("2020-11-10");
  const moreLoad: LoadValue[] = load.map((v) =>
    v.knownAtMs >= cutoffMs ? { ...v, value: v.value * 10 } : v
  );
  for (const d of [d9, d10]) {
    for (let i = 0; i < d.length; i++) {
      moreLoad.push({ startMs: d.startMs + i * 900_000, value: 999, knownAtMs: cutoffMs });
    }
  }
  const laterWeather: WeatherValue[] = [...weather];
  for (let i = 0; i < d10.length; i++) {
    laterWeather.push({
      startMs: d10.startMs + i * 900_000,
      temperatureC: 40,
      ghiWm2: 1000,
      windSpeedMs: 30,
      receivedAtMs: cutoffMs + 1,
    });
  }
  const after = forecastDays({
    cutoffMs,
    days: ["2020-11-10"],
    load: moreLoad,
    weather: laterWeather,
    site: NL_SITE,
  });
  assert.deepEqual(after, before);
  // The same weather received one millisecond before the cut-off does change it (the test can fail).
  const earlier = laterWeather.map((w) =>
    w.receivedAtMs === cutoffMs + 1 ? { ...w, receivedAtMs: cutoffMs - 1 } : w
  );
  const changed = forecastDays({
    cutoffMs,
    days: ["2020-11-10"],
    load,
    weather: earlier,
    site: NL_SITE,
  });
  assert.notDeepEqual(changed[0].values, before[0].values);
});

Deno.test("learned forecast: the model says what it is (method, trained at, window, features, coefficients, in-sample MAE)", () => {
  const { load, weather } = openstefInputs();
  const cutoffMs = gate("2020-11-10");
  const [f] = forecastDays({ cutoffMs, days: ["2020-11-10"], load, weather, site: NL_SITE });
  const m = f.model!;
  assert.equal(m.method, "learned");
  assert.equal(m.trainedAt, "2020-11-09T11:00:00.000Z");
  assert.equal(m.leadDays, 2);
  assert.deepEqual(m.window, {
    first: "2020-10-19",
    last: "2020-11-08",
    days: 21,
    rows: 2018,
  });
  // 20 days of 96 and 2020-10-25 of 100 quarter-hours, less the two missing ones.
  assert.equal(m.window.rows, 20 * 96 + 100 - 2);
  assert.deepEqual(Object.keys(m.coefficients), ["intercept", ...m.features]);
  assert.ok(m.features.includes("load_2d_before") && m.features.includes("ghi"));
  // Irradiance lowers this location's net load (its PV); wind too.
  assert.ok(
    m.coefficients.ghi < 0 && m.coefficients.wind_power < 0,
    JSON.stringify(m.coefficients),
  );
  assert.ok(m.inSampleMae > 0.5 && m.inSampleMae < 4, `in-sample MAE ${m.inSampleMae}`);
  assert.match(
    f.reason,
    /^ridge regression fitted on 21 days of actuals \(2020-10-19 … 2020-11-08\)/,
  );
});

Deno.test("learned forecast: fewer than 14 days of actuals → the load 7 days before, labelled, even across the clock change", () => {
  // Actuals 2026-10-20 … 2026-10-30 (11 days); 2026-10-25 has 100 quarter-hours.
  const { load } = synthetic("2026-10-20", "2026-10-30");
  const days = ["2026-11-01", "2026-11-08", "2026-11-20", "2026-11-30"];
  const out = forecastDays({
    cutoffMs: gate("2026-11-01"),
    days,
    load,
    weather: [],
    site: DE_SITE,
  });
  const byStart = new Map(load.map((v) => [v.startMs, v.value]));
  const expectFrom = (f: DayForecast, source: string) => {
    assert.equal(f.method, "load_7_days_before", f.reason);
    assert.equal(f.reason, "11 of 14 days of actuals");
    const s = localDay(source);
    assert.equal(f.values!.length, 96);
    // Wall-clock slot 02:00 … 02:45 takes the first (summer-time) 02:00 run of 2026-10-25.
    f.values!.forEach((v, i) =>
      assert.equal(v, byStart.get(s.startMs + s.indexOfSlot[i] * 900_000))
    );
  };
  expectFrom(out[0], "2026-10-25"); // 7 days before
  expectFrom(out[1], "2026-10-25"); // 7 days before is not known yet: 14
  expectFrom(out[2], "2026-10-30"); // 21
  assert.equal(out[3].method, "none");
  assert.equal(out[3].values, null);
  assert.match(
    out[3].reason,
    /^11 of 14 days of actuals, and no load of the same weekday at \d\d:\d\d in the 4 weeks before 2026-11-30 to fall back on$/,
  );
});

Deno.test("learned forecast: 3 days of actuals and nothing a week back → no forecast, with the reason, never zeros", () => {
  const { load } = synthetic("2026-11-01", "2026-11-03");
  const [f] = forecastDays({
    cutoffMs: gate("2026-11-05"),
    days: ["2026-11-05"],
    load,
    weather: [],
    site: DE_SITE,
  });
  assert.equal(f.method, "none");
  assert.equal(f.values, null);
  assert.equal(f.model, null);
  assert.match(f.reason, /^3 of 14 days of actuals, and no load of the same weekday at 00:00 /);
  const [empty] = forecastDays({
    cutoffMs: gate("2026-11-05"),
    days: ["2026-11-05"],
    load: [],
    weather: [],
    site: DE_SITE,
  });
  assert.equal(empty.method, "none");
  assert.match(empty.reason, /^0 of 14 days of actuals/);
});

Deno.test("learned forecast: without weather the fit goes on without its weather features, and says so", () => {
  const { load, weather } = synthetic("2026-09-01", "2026-11-06");
  const cutoffMs = gate("2026-11-05");
  const [noWeather] = forecastDays({
    cutoffMs,
    days: ["2026-11-05"],
    load,
    weather: [],
    site: DE_SITE,
  });
  assert.equal(noWeather.method, "learned_without_weather");
  assert.match(
    noWeather.reason,
    /without weather: weather and actuals together for only 0 quarter-hours/,
  );
  assert.ok(!noWeather.model!.features.includes("ghi"));
  // With weather received for tomorrow only: tomorrow learned, the day after without weather.
  const known = weather.filter((w) => w.startMs < localDay("2026-11-06").startMs);
  const withWeather = known.map((w) => ({
    ...w,
    receivedAtMs: Math.min(w.receivedAtMs, cutoffMs - 1),
  }));
  const [d1, d2] = forecastDays({
    cutoffMs,
    days: ["2026-11-05", "2026-11-06"],
    load,
    weather: withWeather,
    site: DE_SITE,
  });
  assert.equal(d1.method, "learned");
  assert.equal(d1.model!.leadDays, 2);
  assert.equal(d2.method, "learned_without_weather");
  assert.equal(d2.model!.leadDays, 3);
  assert.match(d2.reason, /ghi of 2026-11-06 00:00 was not known at the cut-off/);
  // The synthetic load is learnable: tomorrow's forecast is close to the truth.
  const d5 = localDay("2026-11-05");
  const truth = load.filter((v) =>
    v.startMs >= d5.startMs && v.startMs < d5.startMs + d5.length * 900_000
  )
    .map((v) => v.value);
  assert.equal(truth.length, 96);
  const mae = d1.values!.reduce((a, v, i) => a + Math.abs(v - truth[i]), 0) / truth.length;
  assert.ok(mae < 1.2, `MAE ${mae}`);
});

Deno.test("learned forecast: clock-change days get 92 and 100 quarter-hours of finite values", () => {
  const spring = synthetic("2027-01-20", "2027-03-28", 7); // later actuals: not known yet
  const [d92] = forecastDays({
    cutoffMs: gate("2027-03-28"),
    days: ["2027-03-28"],
    ...spring,
    site: DE_SITE,
  });
  assert.equal(d92.method, "learned", d92.reason);
  assert.equal(d92.values!.length, 92);
  assert.ok(d92.values!.every(Number.isFinite));
  const { load, weather } = openstefInputs();
  const [d100] = forecastDays({
    cutoffMs: gate("2020-10-25"),
    days: ["2020-10-25"],
    load,
    weather,
    site: NL_SITE,
  });
  assert.equal(d100.method, "learned", d100.reason);
  assert.equal(d100.values!.length, 100);
  assert.ok(d100.values!.every(Number.isFinite));
});

Deno.test("learned forecast: an unknown holiday region and a day that is no date are refused by name", () => {
  const { load } = synthetic("2026-09-01", "2026-11-03");
  assert.throws(
    () =>
      forecastDays({
        cutoffMs: gate("2026-11-05"),
        days: ["2026-11-05"],
        load,
        weather: [],
        site: { ...DE_SITE, holidayRegion: "XX-YY" },
      }),
    UnknownHolidayRegionError,
  );
  assert.throws(
    () =>
      forecastDays({
        cutoffMs: gate("2026-11-05"),
        days: ["2026-11-31"],
        load,
        weather: [],
        site: DE_SITE,
      }),
    InvalidDeliveryDayError,
  );
});

Deno.test("local days: wall-clock slots on 92/100-quarter-hour days; actuals known 06:00 Berlin the next day", () => {
  const autumn = localDay("2020-10-25");
  assert.equal(autumn.length, 100);
  assert.deepEqual([...autumn.slots.slice(6, 18)], [6, 7, 8, 9, 10, 11, 8, 9, 10, 11, 12, 13]);
  assert.equal(autumn.indexOfSlot[8], 8);
  assert.equal(autumn.indexOfSlot[12], 16);
  const spring = localDay("2021-03-28");
  assert.equal(spring.length, 92);
  assert.deepEqual([...spring.slots.slice(6, 10)], [6, 7, 12, 13]);
  assert.deepEqual([...spring.indexOfSlot.slice(7, 13)], [7, 8, 8, 8, 8, 8]); // 02:xx → 03:00
  assert.equal(
    new Date(actualsKnownAt(Date.parse("2020-10-24T23:45:00Z"))).toISOString(),
    "2020-10-26T05:00:00.000Z",
  );
  assert.equal(
    new Date(actualsKnownAt(Date.parse("2020-10-24T21:45:00Z"))).toISOString(),
    "2020-10-25T05:00:00.000Z",
  );
});

Deno.test("ridge: recovers an exact linear relation; a constant column gets 0", () => {
  const n = 200, p = 3;
  const x = new Float64Array(n * p), y = new Float64Array(n);
  const rnd = random(3);
  for (let r = 0; r < n; r++) {
    x[r * p] = rnd() * 10;
    x[r * p + 1] = rnd() * 100;
    x[r * p + 2] = 5;
    y[r] = 1 + 2 * x[r * p] - 0.3 * x[r * p + 1];
  }
  const f = fitRidge(x, y, new Uint8Array(n).fill(1), new Float64Array(n).fill(1), p, 1e-10);
  assert.ok(
    Math.abs(f.intercept - 1) < 1e-6 && Math.abs(f.coefficients[0] - 2) < 1e-6,
    JSON.stringify(f),
  );
  assert.ok(Math.abs(f.coefficients[1] + 0.3) < 1e-6);
  assert.equal(f.coefficients[2], 0);
  assert.ok(f.inSampleMae < 1e-6);
  // A strong penalty pulls the slopes towards 0 and the fit towards the mean.
  const strong = fitRidge(x, y, new Uint8Array(n).fill(1), new Float64Array(n).fill(1), p, 1e6);
  assert.ok(Math.abs(strong.coefficients[0]) < 1e-3 && strong.inSampleMae > 5);
  assert.throws(
    () => fitRidge(x, y, new Uint8Array(n), new Float64Array(n).fill(1), p, 1),
    RangeError,
  );
});

Deno.test("learned forecast: lead steps — a day is forecast by the fit of the first step at or above its lead, and says so", () => {
  const { load, weather } = openstefInputs();
  const cutoffMs = gate("2020-11-10"); // latest actuals 2020-11-08
  const days = ["2020-11-10", "2020-11-11", "2020-11-12", "2020-11-15"];
  const own = forecastDays({ cutoffMs, days, load, weather, site: NL_SITE });
  const stepped = forecastDays({
    cutoffMs,
    days,
    load,
    weather,
    site: NL_SITE,
    options: { leadSteps: [2, 3, 8] },
  });
  assert.deepEqual(own.map((f) => f.model?.leadDays), [2, 3, 4, 7]);
  assert.deepEqual(stepped.map((f) => f.model?.leadDays), [2, 3, 8, 8]);
  // Leads 2 and 3 are their own steps: the same forecast, bit for bit.
  assert.deepEqual(stepped[0].values, own[0].values);
  assert.deepEqual(stepped[1].values, own[1].values);
  // Lead 4 by the fit for 8: another forecast, from older days only, and the reason says it.
  assert.notDeepEqual(stepped[2].values, own[2].values);
  assert.match(stepped[2].reason, /latest actuals 4 days before \(fitted for a lead of 8 days\)/);
  assert.equal(stepped[2].model?.window.last, "2020-11-08");
  assert.ok(stepped[3].model?.features.includes("load_8d_before"));
});

Deno.test("learned forecast: never below the lowest actual of its window (a PV park's night is 0, not consumption)", () => {
  // A park: 0 at night, a sunny or cloudy day's bell at noon, so a linear fit dips below 0 at dawn.
  const rnd = random(7);
  const load: LoadValue[] = [];
  const weather: WeatherValue[] = [];
  for (let day = "2026-05-01"; day <= "2026-06-10"; day = addDays(day, 1)) {
    const d = localDay(day);
    const sun = 0.2 + 0.8 * rnd();
    for (let i = 0; i < d.length; i++) {
      const startMs = d.startMs + i * 900_000;
      const bell = Math.max(0, Math.sin(Math.PI * (d.slots[i] - 24) / 60));
      // Output grows faster than irradiance (a nonlinear park): a straight line dips below 0.
      const value = 1000 * (bell * sun) ** 2;
      load.push({ startMs, value, knownAtMs: actualsKnownAt(startMs) });
      weather.push({
        startMs,
        temperatureC: 15,
        ghiWm2: 800 * bell * sun,
        windSpeedMs: 4,
        receivedAtMs: startMs - 2 * 86_400_000,
      });
    }
  }
  const [f] = forecastDays({
    cutoffMs: gate("2026-06-10"),
    days: ["2026-06-10"],
    load,
    weather,
    site: DE_SITE,
  });
  assert.equal(f.method, "learned");
  assert.ok(f.values!.every((v) => v >= 0), `${Math.min(...f.values!)}`);
  assert.ok(f.values!.some((v) => v === 0), "the night held at the floor");
  assert.ok(Math.max(...f.values!) > 100, "a day with sun");
});
