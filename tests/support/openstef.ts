/**
 * The OpenSTEF reference set 307 (data/openstef/SOURCE.md) as the learned forecast's inputs, for
 * tests: actuals known from 06:00 Berlin of the next day, weather received at 06:00 Berlin of the
 * day before (the backtest's rules, docs/forecasting.md "What is known when").
 * @module
 */
import { joinHistories, parseHistory } from "../../lib/forecasting/backtest/history_csv.ts";
import { historyInputs } from "../../lib/forecasting/backtest/replay.ts";
import type { Site } from "../../lib/forecasting/inputs.ts";

/** Paths of the set's files, relative to the working directory (the repository). */
export const OPENSTEF = {
  train: "data/openstef/307-train-data.csv",
  test: "data/openstef/307-test-data.csv",
  reference: "data/openstef/predicted_load_307.csv",
};

/** The backtest's default site for the set: the Netherlands. */
export const NL_SITE: Site = { latitude: 52.1, longitude: 5.2, holidayRegion: "NL" };

let cached: ReturnType<typeof joinHistories> | undefined;

/** Both files joined, as read by the backtest (read once per process; do not change it). */
export function openstefHistory() {
  return cached ??= joinHistories(
    [OPENSTEF.train, OPENSTEF.test].map((name) => ({
      name,
      history: parseHistory(Deno.readTextFileSync(name), name),
    })),
  );
}

/** The set's load and weather between two UTC instants (ms, end exclusive), with their known-at times. */
export function openstefInputs(fromMs = -Infinity, toMs = Infinity) {
  return historyInputs(openstefHistory(), fromMs, toMs);
}
