/**
 * The console's learned forecasts without a browser (docs/console.md, "Learned forecasts"): a
 * location's row reads its method as a badge with the reason, its last-28-days error in MW beside
 * the week before with the ratio, the customer's error or "—"; a location not judged yet says so;
 * the summary line counts the methods of the next day; the after-delivery sources name learned
 * and corrected forecasts and what they saved (or cost) against what they replaced. Rows and
 * pages are checked against the wire schemas.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { LearnedRow } from "../../islands/LearnedForecasts.tsx";
import { customerWords, errorWords, summaryWords } from "../../lib/console/learned_texts.ts";
import { sourceLines } from "../../lib/console/settlement_texts.ts";
import { ForecastModelPageSchema, type ForecastModelRow } from "../../lib/wire/forecast_models.ts";
import { DeviationSourceSchema } from "../../lib/wire/settlement.ts";

const text = (html: string) =>
  html.replace(/<[^>]+>/g, " ").replace(/&nbsp;|\u00a0/g, " ").replace(/\s+/g, " ").trim();

const row = (over: Partial<ForecastModelRow> = {}): ForecastModelRow => ({
  market_location_id: "51000000011",
  name: "Park Nord",
  forecast_method: "auto",
  delivery_day: "2026-11-26",
  method: "learned",
  reason: "ridge regression fitted on 21 days of actuals, with weather",
  refreshed_at: "2026-11-25T05:31:00Z",
  last_28_days: {
    model: { mae_kw: 410, days: 27 },
    week_before: { mae_kw: 683, days: 27 },
    customer: null,
    replayed_days: 27,
  },
  correction: null,
  ...over,
});

Deno.test("learned forecasts in the console: a row says the method, why, and the error beside the week before", () => {
  const page = ForecastModelPageSchema.parse({
    forecast_models: [row()],
    next_after: null,
    summary: {
      refreshed_at: "2026-11-25T05:31:00Z",
      delivery_day: "2026-11-26",
      locations: 12,
      by_method: { learned: 10, load_7_days_before: 1, none: 1 },
    },
  });
  const t = text(renderToString(
    <table>
      <tbody>
        <LearnedRow row={page.forecast_models[0]} locale="en" />
      </tbody>
    </table>,
  ));
  assert.match(
    t,
    /^51000000011 Park Nord learned ridge regression fitted on 21 days of actuals, with weather 410 kW vs 683 kW 7 days before \(0\.60×, 27 days\) —$/,
  );
  assert.equal(
    summaryWords(page.summary),
    "12 metered locations · for Thu 26 Nov: 10 learned, 1 load 7 days before, 1 no forecast",
  );
  assert.equal(summaryWords(null), null);
  // Not judged yet; no forecast; a customer's error beside.
  assert.equal(
    errorWords(
      row({ last_28_days: { model: null, week_before: null, customer: null, replayed_days: 0 } }),
      "en",
    ),
    "not judged yet",
  );
  // In the operator's locale, as every figure of the console (a German "0.60" reads as 60).
  assert.equal(
    errorWords(row(), "de-DE").replace(/\u00a0/g, " "),
    "410 kW vs 683 kW 7 days before (0,60×, 27 days)",
  );
  const none = text(renderToString(
    <table>
      <tbody>
        <LearnedRow
          locale="en"
          row={row({
            method: "none",
            reason: "3 of 14 days of actuals",
            last_28_days: {
              model: null,
              week_before: null,
              customer: { mae_kw: 1500, days: 20 },
              replayed_days: 0,
            },
          })}
        />
      </tbody>
    </table>,
  ));
  assert.match(none, /no forecast 3 of 14 days of actuals not judged yet 1\.50 MW$/);
  // A corrected customer forecast: its verdict beside the customer's own error, not only in the
  // reason (the "Last 28 days" column is the learned model's).
  const corrected = row({
    method: "customer_corrected",
    last_28_days: {
      model: { mae_kw: 161, days: 27 },
      week_before: { mae_kw: 217, days: 27 },
      customer: { mae_kw: 69.4, days: 27 },
      replayed_days: 0,
    },
    correction: { used: true, customer_mae_kw: 69.4, corrected_mae_kw: 3.27, days: 27 },
  });
  assert.equal(
    customerWords(corrected, "en").replace(/\u00a0/g, " "),
    "69.4 kW · over 27 days judged: corrected 3.27 kW vs 69.4 kW as sent (used)",
  );
  assert.equal(
    customerWords(
      { ...corrected, correction: { ...corrected.correction!, used: false, days: 1 } },
      "de-DE",
    ).replace(/\u00a0/g, " "),
    "69,4 kW · over 1 day judged: corrected 3,27 kW vs 69,4 kW as sent (not used: no better)",
  );
  assert.equal(customerWords(row(), "en"), "—");
});

Deno.test("after delivery: learned and corrected sources say what they saved against what they replaced", () => {
  const sources = [
    { source: "H0", locations: 3, mad_mw: 0.2, abs_deviation_mwh: 4 },
    {
      source: "learned",
      locations: 1,
      mad_mw: 0.1,
      abs_deviation_mwh: 2,
      saved: {
        replaced: "load_7_days_before",
        mwh: 1.25,
        eur: 125,
        quarter_hours: 96,
        priced_quarter_hours: 96,
      },
    },
    {
      source: "customer_corrected",
      locations: 2,
      mad_mw: 0.1,
      abs_deviation_mwh: 1,
      saved: {
        replaced: "customer",
        mwh: -0.3,
        eur: null,
        quarter_hours: 96,
        priced_quarter_hours: 0,
      },
    },
  ].map((s) => DeviationSourceSchema.parse(s));
  const lines = sourceLines(sources, "en").map((l) => l.replace(/\u00a0/g, " "));
  assert.deepEqual(lines, [
    "profile H0: 4.00 MWh (57.1 %) over 3 locations, mean 200 kW",
    "learned forecasts: 2.00 MWh (28.6 %) over 1 location, mean 100 kW; 1.25 MWh less imbalance than the load 7 days before (125.00 EUR at reBAP)",
    "corrected customer forecasts: 1.00 MWh (14.3 %) over 2 locations, mean 100 kW; 300 kWh more imbalance than the customer's own forecast",
  ]);
});
