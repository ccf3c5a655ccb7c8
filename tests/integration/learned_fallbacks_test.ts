/**
 * The learned forecasts' fallbacks, each labelled and each an attention item (docs/forecasting.md,
 * "In the service"; docs/console_attention.md): a location with 3 days of actuals has no
 * forecast ("3 of 14 days of actuals", never a zero: it stays out of the open position); 10 days
 * give the load of 7 days before; a location naming no weather point, and one whose point has no
 * weather for the days, are learned without weather and say why. Weather for a point no learned
 * location reads turns no day stale. The forecast-model route answers the model and its errors,
 * and 404 in words where there is none. Real KV on a temp file, the real OpenSTEF history.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { attention } from "../../lib/console/attention.ts";
import { localTimeOn } from "../../lib/forecasting/local_days.ts";
import { aggregateDay } from "../../lib/pipeline/aggregate.ts";
import { readModelsSummary } from "../../lib/pipeline/forecast_models.ts";
import { learnedForecastsOf } from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { markLearnedInputs } from "../../lib/pipeline/learned_staleness.ts";
import { putMarketLocation } from "../../lib/pipeline/market_locations.ts";
import type { ForecastModelBody } from "../../lib/wire/forecast_models.ts";
import { call, startServer } from "../support/app.ts";
import { EXT, keysEnv } from "../support/keys.ts";
import { AREA, maloOf, seedLearned } from "../support/learned.ts";
import { tempDir } from "../support/temp.ts";

const TODAY = "2020-11-20";
const NEXT = "2020-11-21";
const NOW = localTimeOn(TODAY, "06:30");
const STEP = {
  by: "test",
  region: "DE",
  learned: { horizonDays: 2, gateClosureLocalTime: "12:00" },
};
const THREE = maloOf("5100000011"), TEN = maloOf("5100000012");
const NO_POINT = maloOf("5100000013"), OLD_POINT = maloOf("5100000014");
const SLP = maloOf("5100000015");

/** The four locations, each with its slice of the history, and the step run at 06:30 today. */
async function fallbacks(kv: Deno.Kv) {
  await seedLearned(kv, { maloId: THREE, firstDay: "2020-11-17", lastDay: "2020-11-19" });
  await seedLearned(kv, { maloId: TEN, firstDay: "2020-11-10", lastDay: "2020-11-19" });
  await seedLearned(kv, {
    maloId: NO_POINT,
    firstDay: "2020-09-20",
    lastDay: "2020-11-19",
    fields: { weather_point: undefined, name: "no point" },
  });
  // Its point received weather once, for two days in September.
  await seedLearned(kv, {
    maloId: OLD_POINT,
    point: "DWD-10384",
    firstDay: "2020-09-20",
    lastDay: "2020-11-19",
    weatherLastDay: "2020-09-20",
    fields: { name: "old point" },
  });
  await putMarketLocation(kv, SLP, {
    control_area: AREA,
    direction: "consumption",
    standard_load_profile: "H0",
    annual_kwh: 3000,
  }, NOW - 86_400_000);
  return await generateForecasts(kv, NEXT, { ...STEP, nowMs: NOW });
}

Deno.test("learned forecasts: each fallback labelled, stored or not, and an attention item", async () => {
  await using dir = await tempDir("bridge-learned-");
  const kv = await Deno.openKv(`${dir.path}/t.kv`);
  try {
    const r = await fallbacks(kv);
    assert.equal(r.learned_refresh?.metered, 4, "the profile location is not among them");
    const [three, ten, noPoint, oldPoint] = await learnedForecastsOf(kv, NEXT, [
      THREE,
      TEN,
      NO_POINT,
      OLD_POINT,
    ]);
    assert.equal(three, null, "no forecast is stored, never zeros");
    assert.equal(ten?.method, "load_7_days_before");
    assert.equal(ten?.reason, "10 of 14 days of actuals");
    assert.equal(noPoint?.method, "learned_without_weather");
    assert.match(noPoint!.reason, /^no weather point set for the location; ridge regression/);
    assert.equal(oldPoint?.method, "learned_without_weather");
    assert.match(
      oldPoint!.reason,
      /without weather: .*was not known at the cut-off|only \d+ quarter-hours/,
    );
    // The open position: three of the four, the one without forecast counted missing.
    const agg = await aggregateDay(kv, NEXT, {
      by: "t",
      nowMs: NOW,
      activeAreas: [AREA],
      region: "DE",
    });
    assert.equal(agg.counts.market_locations, 4, "three learned + the profile location");
    assert.equal(agg.counts.missing_forecast, 1);
    // The attention list: one warning, three notes, each naming the location and why.
    const summary = await readModelsSummary(kv);
    assert.equal(summary?.next_day, NEXT);
    const items = attention({
      days: [],
      orchestrator: { state: "running", failed_passes_in_a_row: 0 },
      nowMs: NOW,
      learned: summary,
    });
    const none = items.filter((i) => i.code === "no_forecast");
    assert.equal(none.length, 1);
    assert.equal(none[0].level, "warn");
    assert.equal(none[0].delivery_day, NEXT);
    assert.match(
      none[0].message,
      new RegExp(
        `^No forecast for ${THREE} \\(OpenSTEF 307\\) for tomorrow \\(Sat 21 Nov\\): 3 of 14 days of actuals, and no load of the same weekday at 00:00 in the 4 weeks before`,
      ),
    );
    const notes = items.filter((i) => i.code === "forecast_fallback").map((i) => i.message);
    assert.equal(notes.length, 3);
    assert.ok(
      notes.some((m) =>
        m.startsWith(`The forecast falls back to the load of 7 days before for ${TEN}`) &&
        m.includes("10 of 14 days of actuals")
      ),
    );
    assert.ok(
      notes.some((m) =>
        m.startsWith(`The forecast is learned without weather for ${NO_POINT} (no point)`) &&
        m.includes("no weather point set")
      ),
    );
    assert.ok(
      notes.some((m) =>
        m.startsWith(`The forecast is learned without weather for ${OLD_POINT} (old point)`)
      ),
    );
    // Weather for a point no learned location reads turns no day stale; for a read one it does.
    assert.deepEqual(
      await markLearnedInputs(kv, { source: "weather", points: ["49.00,8.40"] }, {
        nowMs: NOW,
        by: "t",
      }),
      [],
    );
    assert.deepEqual(
      await markLearnedInputs(kv, { source: "weather", points: ["DWD-10384"] }, {
        nowMs: NOW,
        by: "t",
      }),
      [NEXT],
    );
  } finally {
    kv.close();
  }
});

Deno.test("forecast-model route: the model and its errors beside the baseline; 404 in words where there is none", async () => {
  await using dir = await tempDir("bridge-learned-");
  const kvPath = `${dir.path}/t.kv`;
  const kv = await Deno.openKv(kvPath);
  await fallbacks(kv);
  kv.close();
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), {
    kvPath,
    clock: new FakeClock(NOW),
  });
  try {
    const get = (id: string) =>
      call(`${s.url}/v1/market-locations/${id}/forecast-model`, { headers: { "x-api-key": EXT } });
    let r = await get(NO_POINT);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const b = r.body as ForecastModelBody;
    assert.equal(b.method, "learned_without_weather");
    assert.equal(b.delivery_day, NEXT);
    assert.equal(b.forecast_method, "auto");
    assert.equal(b.model?.trained_at, new Date(NOW).toISOString());
    assert.equal(b.model?.lead_days, 2);
    assert.equal(b.model?.window.days, 21);
    assert.ok(b.model!.features.includes("profile_7d") && !b.model!.features.includes("ghi"));
    assert.equal(Object.keys(b.model!.coefficients).length, b.model!.features.length + 1);
    assert.ok(b.model!.in_sample_mae_kw > 0);
    // 28 days replayed at their gate closures, beside the week before on the same quarter-hours.
    assert.ok(
      b.last_28_days.model && b.last_28_days.model.days >= 20,
      JSON.stringify(b.last_28_days),
    );
    assert.ok(b.last_28_days.week_before!.mae_kw > b.last_28_days.model.mae_kw);
    assert.equal(b.last_28_days.customer, null);
    assert.equal(b.last_28_days.replayed_days, b.last_28_days.model.days);
    assert.deepEqual(b.days.map((d) => d.delivery_day), [TODAY, NEXT, "2020-11-22"]);
    r = await get(THREE);
    assert.equal(r.status, 200);
    assert.equal((r.body as ForecastModelBody).method, "none");
    assert.equal((r.body as ForecastModelBody).model, null);
    r = await get(SLP);
    assert.equal(r.status, 404);
    assert.match(
      (r.body as { detail: string }).detail,
      /standard load profile H0, not by a learned model/,
    );
    r = await get(maloOf("5100000016"));
    assert.equal(r.status, 404);
    assert.match((r.body as { detail: string }).detail, /is not registered/);
    r = await get("12345");
    assert.equal(r.status, 422);
    // Registered after the step ran: no model yet, said so.
    const late = maloOf("5100000017");
    await putMarketLocation(s.kv, late, { control_area: AREA, direction: "generation" }, NOW);
    r = await get(late);
    assert.equal(r.status, 404);
    assert.match(
      (r.body as { detail: string }).detail,
      /has no forecast model yet: the forecast step has not run/,
    );
  } finally {
    await s.close({ keepDir: true });
  }
});
