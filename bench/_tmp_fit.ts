import { joinHistories, parseHistory } from "../lib/forecasting/backtest/history_csv.ts";
import { historyInputs } from "../lib/forecasting/backtest/replay.ts";
import { forecastDays } from "../lib/forecasting/forecast.ts";
import { localTimeOn } from "../lib/forecasting/local_days.ts";
import { addDays } from "../lib/domain/delivery_day.ts";
const h = joinHistories(["data/openstef/307-train-data.csv", "data/openstef/307-test-data.csv"].map((name) => ({ name, history: parseHistory(Deno.readTextFileSync(name), name) })));
const { load, weather } = historyInputs(h);
const site = { latitude: 52, longitude: 5, holidayRegion: "NL" };
const steps = [2, 3, 8, 15, 22, 29, 36];
let sum = 0;
const run = (n: number, today: string, ndays: number) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const cutoffMs = localTimeOn(today, "06:30");
    const days = Array.from({ length: ndays }, (_, j) => addDays(today, j));
    const out = forecastDays({ cutoffMs, days, load, weather, site, options: { leadSteps: steps } });
    sum += out[1].values![10];
  }
  return (performance.now() - t0) / n;
};
run(50, "2020-11-10", 8);
for (const nd of [2, 3, 8]) console.log(nd, "days:", run(200, "2020-11-10", nd).toFixed(2), "ms");
console.log(sum > 0);
