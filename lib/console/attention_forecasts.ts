/**
 * The attention items of the learned forecasts (docs/console_attention.md; docs/forecasting.md,
 * "In the service"): metered market locations whose forecast of the next day-ahead day is not the
 * learned model, from the last refresh's summary — `no_forecast` (warn for tomorrow, else info)
 * where there is none at all ("No forecast for 51000000011 (Park Nord) for tomorrow (Tue 10 Nov): 3
 * of 14 days of actuals, and …"), never a zero in its place, and `forecast_fallback` (info) where
 * a labelled fallback stands in: the load of 7 days before, or the model without weather. Up to three
 * locations of a kind are named one item each; more are one item naming the first three. Pure.
 * @module
 */
import type { ForecastIssue, ForecastModelsSummary } from "../pipeline/forecast_models.ts";
import type { AttentionItem } from "../wire/attention.ts";
import { dayName, relativeDay } from "./day_texts.ts";

/** Locations named one item each before they are grouped. */
const ONE_EACH = 3;

/** What each fallback is called in a sentence. */
const FALLBACK: Record<string, string> = {
  none: "No forecast",
  load_7_days_before: "The forecast falls back to the load of 7 days before",
  learned_without_weather: "The forecast is learned without weather",
};

const label = (i: ForecastIssue) => `${i.malo_id}${i.name ? ` (${i.name})` : ""}`;
const clause = (s: string) => s.replace(/[.\s]+$/, "");

/** The items of a summary (none while the summary's next day is past or absent). */
export function forecastIssueItems(
  summary: ForecastModelsSummary | null | undefined,
  nowMs: number,
): AttentionItem[] {
  if (!summary || !summary.issues.length) return [];
  const out: AttentionItem[] = [];
  for (const method of Object.keys(FALLBACK)) {
    const issues = summary.issues.filter((i) => i.method === method);
    const total = summary.issue_count[method as ForecastIssue["method"]] ?? issues.length;
    if (!issues.length) continue;
    const day = issues[0].day;
    const when = dayName(day, nowMs);
    // A missing forecast of tomorrow (or today) is a warning; of a later day (the customer may
    // still send one) a note, as missing forecasts are before they are due.
    const soon = relativeDay(day, nowMs) === "tomorrow" || relativeDay(day, nowMs) === "today";
    const base = {
      code: method === "none" ? "no_forecast" as const : "forecast_fallback" as const,
      level: method === "none" && soon ? "warn" as const : "info" as const,
      delivery_day: day,
    };
    const what = method === "none" ? "No forecast" : FALLBACK[method];
    if (total <= ONE_EACH) {
      for (const i of issues) {
        out.push({
          ...base,
          message: method === "none"
            ? `No forecast for ${label(i)} for ${when}: ${clause(i.reason)}.`
            : `${what} for ${label(i)} for ${when}: ${clause(i.reason)}.`,
        });
      }
      continue;
    }
    const named = issues.slice(0, ONE_EACH).map((i) => `${label(i)}: ${clause(i.reason)}`);
    out.push({
      ...base,
      message: `${what} for ${total} metered market locations for ${when} — ${
        named.join("; ")
      }; and ${total - ONE_EACH} more (the console's learned forecasts list them).`,
    });
  }
  return out;
}
