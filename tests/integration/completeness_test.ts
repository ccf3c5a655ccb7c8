/**
 * Completeness (docs/pipeline.md, "Aggregation"): a day whose aggregate left market locations
 * without any forecast says so — a warning in the overview with the count and the share, a
 * warning-level event — and below `min_forecast_coverage` the day is not submitted (409 naming the
 * count; the submit cell shows why).
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the market-platform simulator
 * over TLS, real market locations.
 */
import assert from "node:assert/strict";
import { call, storedEvents } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  dayView,
  forDay,
  portfolio,
  proc,
  putLocation,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { AREAS } from "../support/portfolio.ts";
import { areaTotals } from "../../lib/pipeline/totals.ts";

Deno.test("missing forecasts: warning with count and share, warning event, submission refused below the minimum", async () => {
  const r = await rig(BEFORE_GC, { MIN_FORECAST_COVERAGE: "0.9" });
  try {
    await portfolio(r.s); // two market locations with a customer forecast
    await putLocation(r.s, 3, { control_area: AREAS.amprion, direction: "generation" });
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const view = await dayView(r.s, DAY) as unknown as {
      warnings: { code: string; market_locations: number; share: number }[];
    };
    // The third location is a generator without a load profile: its energy is unknown, and so
    // is the share of the day's energy that is missing (not 0 %).
    assert.deepEqual(view.warnings, [{
      code: "missing_forecasts",
      market_locations: 1,
      share: 0.3333,
      energy_share: null,
      missing_mwh: 0,
      expected_mwh: 7.2, // 100 kW and 200 kW all day: 2.4 + 4.8 MWh
      energy_unknown_locations: 1,
    }]);
    // Totals per control area: the same arithmetic as the open position's quarter-hours.
    const pos = await call(`${r.s.url}/v1/delivery-days/${DAY}/open-position`, { headers: proc });
    const areas = (pos.body as { areas: Record<string, number[]> }).areas;
    const totals = (await dayView(r.s, DAY) as unknown as {
      totals: Record<string, { purchase_mwh: number; sale_mwh: number; peak_mw: number }>;
    }).totals;
    assert.deepEqual(Object.keys(totals).sort(), Object.keys(areas).sort());
    for (const [area, mw] of Object.entries(areas)) assert.deepEqual(totals[area], areaTotals(mw));
    // 100 kW at Amprion all day (96 quarter-hours) = 2.4 MWh bought, peak 0.1 MW.
    assert.deepEqual(totals[AREAS.amprion], { purchase_mwh: 2.4, sale_mwh: 0, peak_mw: 0.1 });
    const event = (await storedEvents(r.s.kv)).find((e) => e.kind === "positions_aggregated");
    assert.equal(event?.level, "warning");
    assert.match(String(event?.message), /1 without forecast/);

    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 409);
    assert.match(
      (sub.body as { detail: string }).detail,
      /^Only 2 of 3 market locations of 2026-11-23 have a forecast \(66\.7 %, below min_forecast_coverage 90 %\): 1 without one; nothing was submitted\.$/,
    );
    assert.equal(forDay(r.sim, DAY).length, 0, "nothing reached the platform");
    const failed = (await dayView(r.s, DAY) as unknown as {
      failures: { submitted: { message: string } | null };
    }).failures.submitted;
    assert.match(String(failed?.message), /submit failed: Only 2 of 3 market locations/);

    // With the minimum lowered at runtime the same day goes out.
    const put = await call(`${r.s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ min_forecast_coverage: 0.5 }),
    });
    assert.equal(put.status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    assert.equal(forDay(r.sim, DAY).length, 1);
  } finally {
    await r.close();
  }
});
