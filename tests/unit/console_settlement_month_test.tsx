/**
 * The console's month after delivery without a browser (docs/console_after_delivery.md):
 * `GET /v1/settlement/months/{YYYY-MM}` (a fixture checked against the wire schema,
 * `tests/support/settlement_fixture.ts`) as days × areas with cost and energy, the totals per day
 * and area written so that they add up (docs/console.md, "Numbers"), the sentence in `en` and
 * `de-DE`, and the empty month.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { MonthView } from "../../islands/SettlementMonth.tsx";
import { addMonths, monthGrid } from "../../lib/console/settlement_month.ts";
import { monthSettlement, TENNET } from "../support/settlement_fixture.ts";
import { htmlText as text } from "../support/figures.ts";

Deno.test("the month: days × areas with cost and energy, totals, the sentence in en and de-DE", () => {
  const m = monthSettlement("2027-03", 3);
  const grid = monthGrid(m);
  assert.deepEqual(grid.rows.map((r) => r.delivery_day), [
    "2027-03-01",
    "2027-03-02",
    "2027-03-03",
  ]);
  assert.equal(grid.rows[0].total.cost_eur, 700);
  assert.equal(
    grid.rows[0].total.day_ahead_cost_eur,
    800,
    "a null day-ahead cost is left out, not 0",
  );
  assert.equal(grid.rows[2].total.status, "provisional");
  assert.equal(grid.areaTotals[TENNET].cost_eur, 400 + 410 + 420);
  assert.equal(addMonths("2027-01", -1), "2026-12");
  assert.equal(addMonths("2027-12", 1), "2028-01");

  const en = text(
    renderToString(
      <MonthView month="2027-03" load={{ kind: "ok", body: m }} locale="en" selected={null} />,
    ),
  );
  assert.match(
    en,
    /^March 2027 in all 2 areas: 15.60 MWh short, 7.50 MWh long, 2,160.00 EUR; the day-ahead schedule alone: 4,060.00 EUR\. 3 days settled, 1 of them provisional\./,
  );
  // One unit and one number of decimals for the whole table (docs/console.md, "Numbers").
  assert.match(
    en,
    /Day Amprion TenneT TSO Day total Mon 1 Mar 300.00 EUR 2.00 MWh short · 1.00 MWh long 400.00 EUR 3.00 MWh short · 1.50 MWh long 700.00 EUR 5.00 MWh short · 2.50 MWh long/,
  );
  assert.match(en, /Wed 3 Mar 320.00 EUR .* provisional/);
  assert.match(
    en,
    /Month 930.00 EUR .* 1,230.00 EUR .* 2,160.00 EUR day-ahead alone: 4,060.00 EUR$/,
  );
  const de = text(
    renderToString(
      <MonthView month="2027-03" load={{ kind: "ok", body: m }} locale="de-DE" selected={null} />,
    ),
  );
  assert.match(
    de,
    /^March 2027 in all 2 areas: 15,60 MWh short, 7,50 MWh long, 2.160,00 EUR; the day-ahead schedule alone: 4.060,00 EUR\./,
  );

  for (
    const load of [
      { kind: "none" } as const,
      { kind: "ok", body: monthSettlement("2027-04", 0) } as const,
    ]
  ) {
    const t = text(
      renderToString(<MonthView month="2027-04" load={load} locale="en" selected={null} />),
    );
    assert.equal(
      t,
      "No settlement for April 2027 yet: it appears when actuals and imbalance prices for its days arrive.",
    );
  }
});
