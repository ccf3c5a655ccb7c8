/**
 * The demo's learned forecast (docs/forecasting.md, "In the service"; README "Learned
 * forecasts"): one metered market location carries the real quarter-hour load of OpenSTEF's
 * reference set 307 (data/openstef, with its SOURCE.md and licence), moved by whole weeks so that
 * its actuals end yesterday and scaled to the portfolio, with its weather — stored as a DSO and a
 * weather service would have delivered them (a day's actuals at 06:00 Berlin of the next day, its
 * weather at 06:00 the day before; dev/learned_history.ts), since a fresh demo store has no past.
 * The first pass fits its model and puts its learned forecast into the next day's schedule; the
 * demo prints "learned forecast for 41000001001 (OpenSTEF 307): MAE 28 days 0.12 MW vs 7 days
 * before 0.21 MW …" from `GET /v1/market-locations/{id}/forecast-model`. For yesterday's
 * settlement (dev/demo_settlement.ts) it gives the forecast the service would have made at
 * yesterday's gate closure — the same code on the same inputs (`replay`, the backtest's).
 * @module
 */
import { addDays } from "../lib/domain/delivery_day.ts";
import { joinHistories, parseHistory } from "../lib/forecasting/backtest/history_csv.ts";
import { replay } from "../lib/forecasting/backtest/replay.ts";
import { localTimeOn } from "../lib/forecasting/local_days.ts";
import type { LearnedForecast } from "../lib/pipeline/forecasts.ts";
import { SERVICE_LEAD_STEPS } from "../lib/pipeline/learned_location.ts";
import type { ForecastModelBody } from "../lib/wire/forecast_models.ts";
import { berlinToday } from "./demo_intraday.ts";
import { seedHistory, shiftedHistory } from "./learned_history.ts";

/** The set's files (relative to the repository) and its first and last whole Berlin days. */
const FILES = ["data/openstef/307-train-data.csv", "data/openstef/307-test-data.csv"];
const FIRST = "2020-08-16", LAST = "2020-11-29";
/** Where the set's location is: its weather point and the sun's place. */
const POINT = "52.10,5.20";
const SITE = { latitude: 52.1, longitude: 5.2, holidayRegion: "DE-NW" };

/** The demo's learned location. */
export interface LearnedLocation {
  id: string;
  name: string;
  area: string;
  /**
   * Yesterday as the service would have forecast it at its gate closure: kW per quarter-hour and
   * the learned forecast record (`null` when the history allowed none).
   */
  yesterday: { day: string; kw: number[]; record: LearnedForecast } | null;
}

type Api = (
  path: string,
  method?: string,
  body?: unknown,
  key?: string,
) => Promise<unknown>;

/**
 * Stores the history and registers the location (through the API: its point has weather by then).
 * @param kvPath the service's store, opened beside it
 * @param locations the portfolio's size: the load is scaled to 1/8000 of the set's MW per location
 *   (400 locations: a peak of about 1 MW)
 */
export async function seedLearnedLocation(opts: {
  api: Api;
  externalKey: string;
  kvPath: string;
  id: string;
  area: string;
  locations: number;
  nowMs?: number;
}): Promise<LearnedLocation> {
  const now = opts.nowMs ?? Date.now();
  const today = berlinToday(now);
  const yesterday = addDays(today, -1);
  // Whole weeks, so that the set's last day falls on or after the day after tomorrow: its actuals
  // up to yesterday, its weather up to the day after tomorrow (a weather forecast received by
  // now covers it; the next day-ahead day is that one from 12:00 on).
  const weeks = Math.ceil(daysBetween(LAST, addDays(today, 2)) / 7);
  const first = addDays(FIRST, 7 * weeks);
  const scale = 1000 * opts.locations / 8000;
  const source = joinHistories(FILES.map((name) => ({
    name,
    history: parseHistory(Deno.readTextFileSync(name), name),
  })));
  const history = shiftedHistory(source, weeks, scale, first, addDays(today, 2));
  const kv = await Deno.openKv(opts.kvPath);
  try {
    await seedHistory(kv, {
      maloId: opts.id,
      point: POINT,
      history,
      firstDay: first,
      lastDay: yesterday,
      weatherLastDay: addDays(today, 2),
      untilMs: now,
    });
  } finally {
    kv.close();
  }
  const name = "OpenSTEF 307 (real load, scaled)";
  await opts.api(`/v1/market-locations/${opts.id}`, "PUT", {
    control_area: opts.area,
    direction: "consumption",
    name,
    weather_point: POINT,
    holiday_region: "DE-NW",
  }, opts.externalKey);
  // Yesterday as the service would have forecast it at its gate closure: the same code on the
  // same inputs (the backtest's replay of the stored history).
  const r = replay(history, null, {
    from: yesterday,
    to: yesterday,
    site: SITE,
    model: { leadSteps: SERVICE_LEAD_STEPS },
  });
  const f = r.days[0];
  const kw = r.rows.map((x) => x.forecast);
  return {
    id: opts.id,
    name,
    area: opts.area,
    yesterday: !f.values || f.method === "none" ? null : {
      day: yesterday,
      kw,
      record: {
        values: kw,
        method: f.method,
        reason: f.reason,
        made_at: new Date(localTimeOn(addDays(yesterday, -1), "12:00")).toISOString(),
        customer_received_at: null,
        replaces_customer: false,
        by: "orchestrator",
      },
    },
  };
}

/**
 * The demo's line about the learned location, from its forecast model: "learned forecast for
 * 41000001001 (OpenSTEF 307 (real load, scaled)): MAE 28 days 0.12 MW vs 7 days before 0.21 MW;
 * in the schedule of 2026-11-29 (learned, with weather)".
 */
export async function learnedLine(api: Api, id: string, day: string): Promise<{
  line: string;
  model: ForecastModelBody;
}> {
  const m = await api(`/v1/market-locations/${id}/forecast-model`) as ForecastModelBody;
  const mw = (kw: number | undefined) => kw === undefined ? "—" : `${(kw / 1000).toFixed(2)} MW`;
  const d = m.days.find((x) => x.delivery_day === day);
  const l = m.last_28_days;
  return {
    line: `learned forecast for ${id} (${m.name}): MAE 28 days ${
      mw(l.model?.mae_kw)
    } vs 7 days before ${mw(l.week_before?.mae_kw)} (${
      l.model?.days ?? 0
    } days); in the schedule of ${day} (${d?.method ?? "not forecast"})`,
    model: m,
  };
}

const daysBetween = (a: string, b: string) =>
  Temporal.PlainDate.from(a).until(Temporal.PlainDate.from(b)).days;
