/**
 * The `weather` part (issue 33 item 1; docs/weather.md, "Cost"): one weather point fed like an
 * Open-Meteo subscriber feeds it — every `BENCH_WEATHER_EVERY_H` (3) hours an answer of 17 days
 * (yesterday and 16 ahead, hourly), each stored as versions per delivery day — then the forecast
 * step's read, 8 weeks and 2 days as known at T (`weatherAsOf`); the same as known at a T a month
 * back (a replay), 100 reads one after the other, and the store of one answer. The floor: the
 * same days' latest records read raw (`getMany`, 10 keys a read). Goal: < 50 ms a point.
 * @module
 */
import { importWeather } from "../lib/weather/import.ts";
import { weatherAsOf } from "../lib/weather/read.ts";
import { deliveryDay, localDayOf } from "../lib/domain/delivery_day.ts";
import { KEYS } from "../lib/store/keys.ts";
import { getManyChunked } from "../lib/store/kv.ts";
import { median, num, report, type Row, row, tempDir } from "./common.ts";

const EVERY_H = num("BENCH_WEATHER_EVERY_H", 3);
const DAYS = num("BENCH_WEATHER_DAYS", 60);
const ROUNDS = num("BENCH_WEATHER_ROUNDS", 30);
const POINTS = num("BENCH_WEATHER_POINTS", 100);
const PART = "33 weather";
const H = 3_600_000;
const T0 = Date.parse("2026-09-01T00:00:00Z");

/** An Open-Meteo answer fetched at `at`: yesterday 00:00 UTC to 16 days ahead, hourly. */
function answer(at: number, lat: number): unknown {
  const start = Math.floor(at / 86_400_000) * 86_400_000 - 86_400_000;
  const n = 17 * 24;
  const time = Array.from(
    { length: n },
    (_, i) => new Date(start + i * H).toISOString().slice(0, 16),
  );
  const wave = (i: number, a: number, b: number) =>
    +(a + b * Math.sin((i + at / H) / 7)).toFixed(1);
  return {
    latitude: lat,
    longitude: 13.42,
    utc_offset_seconds: 0,
    timezone: "GMT",
    timezone_abbreviation: "GMT",
    hourly_units: {
      time: "iso8601",
      temperature_2m: "°C",
      shortwave_radiation: "W/m²",
      wind_speed_100m: "km/h",
    },
    hourly: {
      time,
      temperature_2m: time.map((_, i) => wave(i, 8, 6)),
      shortwave_radiation: time.map((_, i) => Math.max(0, wave(i, 50, 300))),
      wind_speed_100m: time.map((_, i) => wave(i, 20, 10)),
    },
  };
}

const dir = await tempDir("bench-weather-");
const kv = await Deno.openKv(`${dir.path}/weather.kv`);
const events = { append: () => Promise.resolve() } as unknown as Parameters<
  typeof importWeather
>[0]["events"];
const rows: Row[] = [];
try {
  let now = T0;
  const deps = { kv, events, clock: { now: () => now } };
  const store: number[] = [];
  let versions = 0;
  for (; now < T0 + DAYS * 86_400_000; now += EVERY_H * H) {
    const t = performance.now();
    const r = await importWeather(deps, "open_meteo", answer(now, 52.52), "bench", "bench");
    store.push(performance.now() - t);
    versions += r.versions;
  }
  const T = now;
  rows.push(
    row(
      PART,
      `store one Open-Meteo answer (17 days hourly, median of ${store.length})`,
      median(store),
      "ms",
      {
        note: `${versions} versions of ${DAYS + 16} days in all`,
      },
    ),
  );

  const point = "52.52,13.42";
  const from = deliveryDay(localDayOf(T - 56 * 86_400_000)).start.epochMilliseconds;
  const to = deliveryDay(localDayOf(T + 86_400_000)).end.epochMilliseconds;
  const days: string[] = [];
  for (let ms = from; ms < to; ms = deliveryDay(localDayOf(ms)).end.epochMilliseconds) {
    days.push(localDayOf(ms));
  }
  // The floor of the layout: the 58 latest records read raw, 10 keys a read, nothing composed.
  const keys = days.map((d) => KEYS.weatherLatest(d, point));
  const bare = () => getManyChunked(kv, keys);
  const timed = async (fn: () => Promise<unknown>) => {
    const out: number[] = [];
    for (let i = 0; i < 3; i++) await fn(); // warm-up
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
    return median(out);
  };
  const floor = await timed(bare);
  const read = await timed(() => weatherAsOf(kv, point, from, to, T));
  const w = await weatherAsOf(kv, point, from, to, T);
  const known = w.ghi_w_m2.filter((x) => x !== null).length;
  rows.push(row(PART, `read ${days.length} days of one point as known at T (median)`, read, "ms", {
    base: ["bare getMany of the days' latest records", floor],
    goal: ["< 50 ms", read < 50],
    note: `${known} of ${w.ghi_w_m2.length} quarter-hours known`,
  }));
  const replayT = T - 30 * 86_400_000;
  const replay = await timed(() =>
    weatherAsOf(kv, point, from - 30 * 86_400_000, to - 30 * 86_400_000, replayT)
  );
  rows.push(row(PART, "the same as known at a T 30 days back (replay)", replay, "ms", {
    base: ["as known at T", read],
  }));
  const t = performance.now();
  for (let p = 0; p < POINTS; p++) await weatherAsOf(kv, point, from, to, T);
  const each = (performance.now() - t) / POINTS;
  rows.push(
    row(PART, `mean of ${POINTS} such reads one after the other (a point each)`, each, "ms", {
      base: ["median read", read],
    }),
  );
} finally {
  kv.close();
  await dir.remove();
}
report(rows);
