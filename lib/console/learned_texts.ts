/**
 * The words of the console's learned forecasts (docs/console.md, "Learned forecasts"): how each
 * method reads, a mean absolute error in MW beside the "7 days before" baseline, and the summary
 * line of the last refresh. Pure: the island and its tests use the same sentences.
 * @module
 */
import type { ForecastModelPage, ForecastModelRow } from "../wire/forecast_models.ts";
import { weekdayDate } from "./day_texts.ts";
import { formatNumber, power } from "./format.ts";

/** How a day's method reads. */
export const METHOD_WORDS: Record<ForecastModelRow["method"], string> = {
  learned: "learned",
  learned_without_weather: "learned without weather",
  load_7_days_before: "load 7 days before",
  none: "no forecast",
  customer: "customer forecast",
  customer_corrected: "customer forecast, corrected",
  no_customer_forecast: "no customer forecast yet",
};

/** Tone of a method's badge: a fallback warns, no forecast is an error. */
export function methodTone(m: ForecastModelRow["method"]): "ok" | "warn" | "error" | "neutral" {
  if (m === "none" || m === "no_customer_forecast") return "error";
  if (m === "load_7_days_before" || m === "learned_without_weather") return "warn";
  return m === "learned" || m === "customer_corrected" ? "ok" : "neutral";
}

/**
 * An error from kW as the console writes power in `locale` (docs/console.md, "Numbers"): `3.90 MW`,
 * `410 kW` (below 1 MW), `—` without a value.
 */
export function maeMw(kw: number | null | undefined, locale: string): string {
  return power(kw === null || kw === undefined ? kw : kw / 1000, locale);
}

/**
 * The last 28 days in words, figures in `locale`: `410 kW vs 683 kW 7 days before (0.60×, 27
 * days)`; `not judged yet` without a model error.
 */
export function errorWords(r: ForecastModelRow, locale: string): string {
  const m = r.last_28_days.model, w = r.last_28_days.week_before;
  if (!m) return "not judged yet";
  const ratio = w && w.mae_kw > 0 ? `${formatNumber(m.mae_kw / w.mae_kw, 2, locale)}×, ` : "";
  return `${maeMw(m.mae_kw, locale)} vs ${
    maeMw(w?.mae_kw, locale)
  } 7 days before (${ratio}${m.days} day${m.days === 1 ? "" : "s"})`;
}

/**
 * The customer forecast's column in words, figures in `locale`: its last-28-days MAE (`—` without
 * one) and, for a location with a correction of its customer forecast, the correction's verdict
 * on the days it was judged on, corrected beside as sent, and whether it is used:
 * `69.4 kW · over 27 days judged: corrected 3.27 kW vs 69.4 kW as sent (used)`, or `… (not used:
 * no better)` (docs/forecasting.md, "Customer forecasts corrected").
 */
export function customerWords(r: ForecastModelRow, locale: string): string {
  const own = maeMw(r.last_28_days.customer?.mae_kw, locale);
  const c = r.correction;
  if (!c) return own;
  return `${own} · over ${c.days} day${c.days === 1 ? "" : "s"} judged: corrected ${
    maeMw(c.corrected_mae_kw, locale)
  } vs ${maeMw(c.customer_mae_kw, locale)} as sent (${c.used ? "used" : "not used: no better"})`;
}

/**
 * The summary line: `12 metered locations · for Tue 10 Nov: 10 learned, 1 load 7 days before, 1
 * no forecast`; `null` before the first refresh.
 */
export function summaryWords(s: ForecastModelPage["summary"]): string | null {
  if (!s) return null;
  const parts = Object.entries(s.by_method).filter(([, n]) => n > 0)
    .sort(([, a], [, b]) => b - a)
    .map(([m, n]) => `${n} ${METHOD_WORDS[m as ForecastModelRow["method"]] ?? m}`);
  return `${s.locations} metered location${s.locations === 1 ? "" : "s"} · for ${
    weekdayDate(s.delivery_day)
  }: ${parts.join(", ") || "none forecast"}`;
}
