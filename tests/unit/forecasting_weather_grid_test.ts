/**
 * The weather grid shared by the locations of a weather point (lib/forecasting/weather_grid.ts;
 * docs/forecasting.md, "Speed"): a frozen weather array's grid is laid once per cut-off and days
 * and reused, and the forecasts made with it are the ones made without sharing, value by value —
 * also at an earlier cut-off after a later one (no look-ahead through the kept grid).
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { forecastDays } from "../../lib/forecasting/forecast.ts";
import type { WeatherValue } from "../../lib/forecasting/inputs.ts";
import { localDay, localDays } from "../../lib/forecasting/local_days.ts";
import { weatherOnGrid } from "../../lib/forecasting/weather_grid.ts";
import { NL_SITE, openstefInputs } from "../support/openstef.ts";

const gate = (day: string) => deliveryDay(day).gateClosure.epochMilliseconds;

Deno.test("weather grid: a frozen weather array's grid is kept per cut-off and days; an unfrozen one's is laid afresh", () => {
  const { weather } = openstefInputs();
  const days = localDays("2020-11-01", "2020-11-10");
  const n = days.reduce((s, d) => s + d.length, 0);
  const frozen = Object.freeze([...weather]);
  const a = weatherOnGrid(frozen, gate("2020-11-09"), days, n);
  assert.equal(a.shared, true);
  assert.equal(weatherOnGrid(frozen, gate("2020-11-09"), days, n), a); // the same grid
  assert.notEqual(weatherOnGrid(frozen, gate("2020-11-08"), days, n), a); // another cut-off
  const b = weatherOnGrid(weather, gate("2020-11-09"), days, n);
  assert.equal(b.shared, false);
  assert.notEqual(weatherOnGrid(weather, gate("2020-11-09"), days, n), b);
  assert.deepEqual([...b.ghi], [...a.ghi]);
  assert.deepEqual([...b.wind], [...a.wind]);
});

Deno.test("weather grid: forecasts with shared weather equal those without, value by value, in any order of cut-offs", () => {
  const { load, weather } = openstefInputs();
  // Weather of 2020-11-12 received twice: a first forecast before the gate closure, and a very
  // different one an hour after it, before an intraday cut-off (the earlier must not see it).
  const first = gate("2020-11-12"), second = first + 2 * 3_600_000;
  const d12 = localDay("2020-11-12");
  const revised: WeatherValue[] = [];
  for (let i = 0; i < d12.length; i++) {
    revised.push({
      startMs: d12.startMs + i * 900_000,
      temperatureC: 35,
      ghiWm2: 900,
      windSpeedMs: 20,
      receivedAtMs: first + 60_000,
    });
  }
  const all = [...weather, ...revised];
  const shared = Object.freeze([...all]);
  const ask = (cutoffMs: number, w: readonly WeatherValue[]) =>
    forecastDays({
      cutoffMs,
      days: ["2020-11-12", "2020-11-13"],
      load,
      weather: w,
      site: NL_SITE,
    });
  const early = ask(first, all), late = ask(second, all);
  assert.equal(early[0].method, "learned");
  assert.notDeepEqual(late[0].values, early[0].values); // the revision counts from its receipt
  // Shared: the later cut-off first, then the earlier one, then both again.
  assert.deepEqual(ask(second, shared), late);
  assert.deepEqual(ask(first, shared), early);
  assert.deepEqual(ask(second, shared), late);
  assert.deepEqual(ask(first, shared), early);
});
