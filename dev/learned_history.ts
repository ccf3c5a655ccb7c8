/**
 * A quarter-hour history (the backtest's `History`, e.g. data/openstef) stored as a metered
 * market location's actuals and its weather point's weather, each with the instant a DSO and a
 * weather service would have delivered it — a day's actuals at 06:00 Berlin of the next day, a
 * day's weather at 06:00 Berlin of the day before (the backtest's rules, docs/forecasting.md "The
 * backtest") — through the stores' own writers (`storeActuals`, `storeWeather`,
 * `recordDeliveries`). The demo gives its learned location the real history this way (a fresh
 * store has no past), and the tests store the inputs the backtest reads, to compare the two.
 * @module
 */
import { addDays } from "../lib/domain/delivery_day.ts";
import type { History } from "../lib/forecasting/backtest/history_csv.ts";
import { weatherReceivedAt } from "../lib/forecasting/backtest/replay.ts";
import { actualsKnownAt, localDay } from "../lib/forecasting/local_days.ts";
import { storeActuals } from "../lib/settlement/actuals_store.ts";
import { QH_MS } from "../lib/settlement/series.ts";
import { recordDeliveries } from "../lib/weather/points.ts";
import { storeWeather } from "../lib/weather/store.ts";

/** What to store. */
export interface SeedOptions {
  maloId: string;
  point: string;
  /** The history, its `load` in kW (the service's unit). */
  history: History;
  /** Berlin days whose actuals are stored, both included. */
  firstDay: string;
  lastDay: string;
  /** Last Berlin day whose weather is stored (default `lastDay`). */
  weatherLastDay?: string;
  /**
   * Nothing is delivered later than this instant (UTC ms): a delivery due after it comes at it
   * (the demo at 03:00 has yesterday's actuals already). Default: none.
   */
  untilMs?: number;
}

/**
 * Stores the history day by day, each delivery at its instant (see the module doc).
 * @returns how many days of actuals and of weather were stored
 */
export async function seedHistory(
  kv: Deno.Kv,
  opts: SeedOptions,
): Promise<{ actualsDays: number; weatherDays: number }> {
  const index = new Map(opts.history.startMs.map((ms, r) => [ms, r]));
  const h = opts.history;
  const until = opts.untilMs ?? Infinity;
  const rowsOf = (day: string) => {
    const d = localDay(day);
    return Array.from({ length: d.length }, (_, i) => index.get(d.startMs + i * QH_MS));
  };
  let actualsDays = 0, weatherDays = 0;
  for (let day = opts.firstDay; day <= opts.lastDay; day = addDays(day, 1)) {
    const start = localDay(day).startMs;
    const kwh = rowsOf(day).map((r) => r === undefined ? NaN : h.load[r] / 4);
    if (kwh.every((v) => Number.isNaN(v))) continue;
    await storeActuals(
      kv,
      [{ owner: { kind: "market_location", malo_id: opts.maloId }, start, kwh, where: day }],
      "history",
      Math.min(actualsKnownAt(start), until),
    );
    actualsDays++;
  }
  const lastWeather = opts.weatherLastDay ?? opts.lastDay;
  for (let day = addDays(opts.firstDay, -1); day <= lastWeather; day = addDays(day, 1)) {
    const start = localDay(day).startMs;
    const rows = rowsOf(day);
    const pick = (col: number[]) => Float64Array.from(rows, (r) => r === undefined ? NaN : col[r]);
    const values = {
      temperature_c: pick(h.temperatureC),
      ghi_w_m2: pick(h.ghiWm2),
      wind_speed_m_s: pick(h.windSpeedMs),
    };
    if (values.temperature_c.every((v) => Number.isNaN(v))) continue;
    const at = Math.min(weatherReceivedAt(start), until);
    await storeWeather(kv, [{ point: opts.point, start, values }], at, "history");
    await recordDeliveries(
      kv,
      [{ point: opts.point, fromMs: start, toMs: start + rows.length * QH_MS }],
      at,
      "history",
    );
    weatherDays++;
  }
  return { actualsDays, weatherDays };
}

/**
 * A history moved by whole weeks onto the Berlin days `firstDay` … `lastDay` and scaled: each day
 * takes the source day `weeks` × 7 days earlier, quarter-hour by wall-clock slot (weekdays and
 * hours stay, also across a clock change: lib/forecasting/local_days.ts; on a 100-quarter-hour
 * day both runs of the repeated hour take the source's first where it has only one), `load`
 * multiplied by `scale` (MW → kW × a share of the portfolio). Weather stays as it was.
 */
export function shiftedHistory(
  h: History,
  weeks: number,
  scale: number,
  firstDay: string,
  lastDay: string,
): History {
  const index = new Map(h.startMs.map((ms, r) => [ms, r]));
  const out: History = { startMs: [], load: [], temperatureC: [], ghiWm2: [], windSpeedMs: [] };
  for (let day = firstDay; day <= lastDay; day = addDays(day, 1)) {
    const t = localDay(day), src = localDay(addDays(day, -7 * weeks));
    for (let i = 0; i < t.length; i++) {
      const j = t.length === src.length ? i : src.indexOfSlot[t.slots[i]];
      const r = index.get(src.startMs + j * QH_MS);
      if (r === undefined) continue;
      out.startMs.push(t.startMs + i * QH_MS);
      out.load.push(h.load[r] * scale);
      out.temperatureC.push(h.temperatureC[r]);
      out.ghiWm2.push(h.ghiWm2[r]);
      out.windSpeedMs.push(h.windSpeedMs[r]);
    }
  }
  return out;
}
