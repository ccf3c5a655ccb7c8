/**
 * The OpenSTEF reference set 307 (data/openstef/SOURCE.md) as the learned forecast's inputs, for
 * tests: actuals known from 06:00 Berlin of the next day, weather received at 06:00 Berlin of the
 * day before (the backtest's rules, docs/forecasting.md "What is known when").
 * @module
 */
import { joinHistories, parseHistory } from "../../lib/forecasting/backtest/history_csv.ts";
import { weatherReceivedAt } from "../../lib/forecasting/backtest/replay.ts";
import type { LoadValue, Site, WeatherValue } from "../../lib/forecasting/inputs.ts";
import { actualsKnownAt } from "../../lib/forecasting/local_days.ts";

/** Paths of the set's files, relative to the working directory (the repository). */
export const OPENSTEF = {
  train: "data/openstef/307-train-data.csv",
  test: "data/openstef/307-test-data.csv",
  reference: "data/openstef/predicted_load_307.csv",
};

/** The backtest's default site for the set: the Netherlands. */
export const NL_SITE: Site = { latitude: 52.1, longitude: 5.2, holidayRegion: "NL" };

/** Both files joined, as read by the backtest. */
export function openstefHistory() {
  return joinHistories(
    [OPENSTEF.train, OPENSTEF.test].map((name) => ({
      name,
      history: parseHistory(Deno.readTextFileSync(name), name),
    })),
  );
}

/** The set's load and weather between two UTC instants (ms, end exclusive), with their known-at times. */
export function openstefInputs(fromMs = -Infinity, toMs = Infinity) {
  const h = openstefHistory();
  const load: LoadValue[] = [];
  const weather: WeatherValue[] = [];
  h.startMs.forEach((startMs, r) => {
    if (startMs < fromMs || startMs >= toMs) return;
    if (!Number.isNaN(h.load[r])) {
      load.push({ startMs, value: h.load[r], knownAtMs: actualsKnownAt(startMs) });
    }
    weather.push({
      startMs,
      temperatureC: h.temperatureC[r],
      ghiWm2: h.ghiWm2[r],
      windSpeedMs: h.windSpeedMs[r],
      receivedAtMs: weatherReceivedAt(startMs),
    });
  });
  return { load, weather };
}
