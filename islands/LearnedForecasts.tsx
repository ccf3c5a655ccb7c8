/**
 * Island: the learned forecasts (docs/console.md, "Learned forecasts"): per metered market
 * location how its next day-ahead day is forecast (learned, a labelled fallback, the customer's
 * forecast corrected or not) and why, and its mean absolute error over the last 28 days beside
 * the "7 days before" baseline and the customer's forecast. Reads `GET /v1/console/forecast-models`
 * when the status names a newer last pass; "More" pages on.
 * @module
 */
import { useSignal, useSignalEffect } from "@preact/signals";
import { Badge } from "../components/Badge.tsx";
import { LocalTime } from "../components/LocalTime.tsx";
import { ApiError } from "../lib/console/api.ts";
import { browserLocale } from "../lib/console/format.ts";
import {
  customerWords,
  errorWords,
  METHOD_WORDS,
  methodTone,
  summaryWords,
} from "../lib/console/learned_texts.ts";
import { api, apiKey, isRefusal, status } from "../lib/console/session.ts";
import type { ForecastModelPage, ForecastModelRow } from "../lib/wire/forecast_models.ts";

const PAGE = 50;

/** One location's row, its figures in `locale` (default: the browser's). */
export function LearnedRow(
  { row, locale = browserLocale() }: { row: ForecastModelRow; locale?: string },
) {
  return (
    <tr data-malo={row.market_location_id}>
      <th scope="row">
        {row.market_location_id}
        {row.name && <span class="muted">{` ${row.name}`}</span>}
      </th>
      <td data-label="Next day-ahead day">
        <Badge tone={methodTone(row.method)}>{METHOD_WORDS[row.method]}</Badge>
        <span class="muted learned-reason">{` ${row.reason}`}</span>
      </td>
      <td data-label="Last 28 days">{errorWords(row, locale)}</td>
      <td data-label="Customer forecast">{customerWords(row, locale)}</td>
    </tr>
  );
}

/** The learned forecasts. */
export function LearnedForecasts() {
  const page = useSignal<ForecastModelPage | null>(null);
  const error = useSignal<string | null>(null);
  const loaded = useSignal<string | null>(null);

  const fetchPage = async (after?: string) => {
    try {
      const q = `limit=${PAGE}${after ? `&after=${after}` : ""}`;
      const next = await api<ForecastModelPage>("GET", `/v1/console/forecast-models?${q}`);
      page.value = after && page.value
        ? { ...next, forecast_models: [...page.value.forecast_models, ...next.forecast_models] }
        : next;
      error.value = null;
    } catch (err) {
      if (isRefusal(err)) page.value = null;
      else error.value = err instanceof ApiError ? err.detail : String(err);
    }
  };

  useSignalEffect(() => {
    const key = apiKey.value;
    const st = status.value;
    if (!key || !st) {
      if (!key) page.value = null;
      return;
    }
    const mark = `${key}\n${st.orchestrator.last_pass?.finished_at ?? "none"}`;
    if (loaded.peek() === mark) return;
    loaded.value = mark;
    void fetchPage();
  });

  const p = page.value;
  const rows = p?.forecast_models ?? [];
  return (
    <div class="learned">
      {error.value && <p class="error" role="alert">{error.value}</p>}
      {!apiKey.value && (
        <p class="placeholder">Enter the process key to see the learned forecasts.</p>
      )}
      {p && !p.summary && (
        <p class="placeholder">
          No metered market location forecast yet: the forecast step learns each one's load from its
          actuals and weather.
        </p>
      )}
      {p?.summary && (
        <p class="learned-summary">
          {summaryWords(p.summary)} · made <LocalTime iso={p.summary.refreshed_at} />
        </p>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="month-table learned-table">
            <caption class="muted">
              Mean absolute error over the last 28 days: the forecast as made at each day's gate
              closure, beside the load 7 days before and the customer's forecast.
            </caption>
            <thead>
              <tr>
                <th scope="col">Market location</th>
                <th scope="col">Next day-ahead day</th>
                <th scope="col">Last 28 days</th>
                <th scope="col">Customer forecast</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => <LearnedRow key={r.market_location_id} row={r} />)}
            </tbody>
          </table>
        </div>
      )}
      {p?.next_after && (
        <button
          type="button"
          class="btn btn-small"
          onClick={() => fetchPage(p.next_after!)}
        >
          More
        </button>
      )}
    </div>
  );
}
