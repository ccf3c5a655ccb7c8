/**
 * The learned forecasts in the service (docs/forecasting.md, "In the service"), on the real
 * OpenSTEF history stored as a metered location's actuals and its point's weather, each delivered
 * when the backtest assumes: the forecast step's learned forecast of a day equals the backtest's
 * value by value; an actual or a weather delivery received after the cut-off leaves the forecast
 * of that cut-off as it was; the location, which has no customer forecast, is in the open
 * position with its learned values. Real KV on a temp file; the cut-off is given, no clock waits.
 */
import assert from "node:assert/strict";
import { replay } from "../../lib/forecasting/backtest/replay.ts";
import { localTimeOn } from "../../lib/forecasting/local_days.ts";
import { aggregateDay } from "../../lib/pipeline/aggregate.ts";
import { readDay } from "../../lib/pipeline/day_state.ts";
import { readModel } from "../../lib/pipeline/forecast_models.ts";
import { learnedForecastsOf } from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { SERVICE_LEAD_STEPS } from "../../lib/pipeline/learned_location.ts";
import { markLearnedInputs } from "../../lib/pipeline/learned_staleness.ts";
import { storeActuals } from "../../lib/settlement/actuals_store.ts";
import { storeWeather } from "../../lib/weather/store.ts";
import { recordDeliveries } from "../../lib/weather/points.ts";
import { localDay } from "../../lib/forecasting/local_days.ts";
import { AREA, historyKw, LEARNED_MALO, POINT, seedLearned, SITE } from "../support/learned.ts";
import { tempDir } from "../support/temp.ts";
import { FakeClock } from "../../lib/clock.ts";
import { storePrices } from "../../lib/settlement/prices_store.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { call, startServer } from "../support/app.ts";
import { keysEnv, PROC } from "../support/keys.ts";

const TODAY = "2020-11-09";
const TOMORROW = "2020-11-10";
const AFTER = "2020-11-11";
/** The day-ahead gate closure of tomorrow: the cut-off of the step. */
const CUTOFF = localTimeOn(TODAY, "12:00");
const STEP = {
  by: "test",
  region: "DE",
  learned: { horizonDays: 7, gateClosureLocalTime: "12:00" },
};

/** A store with the history up to the day before yesterday (all delivered before the cut-off). */
async function seeded() {
  const dir = await tempDir("bridge-learned-");
  const kv = await Deno.openKv(`${dir.path}/t.kv`);
  await seedLearned(kv, {
    firstDay: "2020-09-01",
    lastDay: "2020-11-08",
    weatherLastDay: TOMORROW,
  });
  return {
    kv,
    async [Symbol.asyncDispose]() {
      kv.close();
      await dir.remove();
    },
  };
}

/** The backtest's forecast of `day` made at `daysBefore` × the gate closure before it, in kW. */
function backtest(day: string, daysBefore: number) {
  return replay(historyKw(), null, {
    from: day,
    to: day,
    daysBefore,
    site: SITE,
    model: { leadSteps: SERVICE_LEAD_STEPS },
  }).rows.map((r) => r.forecast);
}

Deno.test("learned forecasts: the forecast step and the backtest give the same forecast, value by value", async () => {
  await using s = await seeded();
  const r = await generateForecasts(s.kv, TOMORROW, { ...STEP, nowMs: CUTOFF });
  assert.equal(r.learned, 1);
  assert.equal(r.learned_refresh?.computed, 1);
  for (const [day, before] of [[TOMORROW, 1], [AFTER, 2]] as const) {
    const [stored] = await learnedForecastsOf(s.kv, day, [LEARNED_MALO]);
    assert.ok(stored, `a learned forecast of ${day} is stored`);
    const expected = backtest(day, before);
    assert.equal(stored.values.length, expected.length);
    assert.ok(expected.every(Number.isFinite));
    stored.values.forEach((v, i) => assert.equal(v, expected[i], `${day}, quarter-hour ${i}`));
    // Tomorrow with the weather received at 06:00 today; the day after without any yet.
    assert.equal(stored.method, day === TOMORROW ? "learned" : "learned_without_weather");
  }
  // The record speaks of the next day whose gate closure is ahead: at 12:00 the day after.
  const model = await readModel(s.kv, LEARNED_MALO);
  assert.equal(model?.next_day, AFTER);
  assert.equal(model?.model?.method, "learned_without_weather");
  assert.equal(model?.model?.lead_days, 3);
  assert.equal(model?.model?.trained_at, new Date(CUTOFF).toISOString());
  assert.equal(model?.model?.window.last, "2020-11-08");
  assert.equal(model?.days[TOMORROW].method, "learned");
});

Deno.test("learned forecasts: the last day of a two-week horizon is read as far back as its lead needs, as in the backtest", async () => {
  // Day 14 of the horizon is fitted for a lead of 15 days: lags of 15 and 21 days before each of
  // the window's 21 days reach 42 days before the cut-off's day. A refit without replays (the
  // daily path: no replay budget) reads only what its forecasts need.
  await using s = await seeded();
  const last = "2020-11-23";
  await generateForecasts(s.kv, TOMORROW, {
    ...STEP,
    learned: { horizonDays: 14, gateClosureLocalTime: "12:00", replayBudgetMs: 0 },
    nowMs: CUTOFF,
  });
  const [stored] = await learnedForecastsOf(s.kv, last, [LEARNED_MALO]);
  assert.ok(stored, `a learned forecast of ${last} is stored`);
  assert.equal(stored.method, "learned_without_weather");
  const expected = backtest(last, 14);
  assert.equal(stored.values.length, expected.length);
  stored.values.forEach((v, i) => assert.equal(v, expected[i], `${last}, quarter-hour ${i}`));
});

Deno.test("learned forecasts: an actual or weather received after the cut-off leaves that cut-off's forecast as it was", async () => {
  await using s = await seeded();
  await generateForecasts(s.kv, TOMORROW, { ...STEP, nowMs: CUTOFF });
  const [before] = await learnedForecastsOf(s.kv, TOMORROW, [LEARNED_MALO]);
  const h = historyKw();
  const later = CUTOFF + 3_600_000;
  // Yesterday's and today's actuals (arrived one hour after the cut-off) …
  for (const day of [TODAY, TOMORROW]) {
    const d = localDay(day);
    const idx = new Map(h.startMs.map((ms, r) => [ms, r]));
    const kwh = Array.from(
      { length: d.length },
      (_, i) => h.load[idx.get(d.startMs + i * 900_000)!] / 4,
    );
    await storeActuals(
      s.kv,
      [{
        owner: { kind: "market_location", malo_id: LEARNED_MALO },
        start: d.startMs,
        kwh,
        where: day,
      }],
      "late",
      later,
    );
  }
  // … and a later weather forecast for tomorrow, 5 °C colder and half the irradiance.
  const d = localDay(TOMORROW);
  const w = {
    temperature_c: new Float64Array(d.length).fill(2),
    ghi_w_m2: new Float64Array(d.length).fill(10),
    wind_speed_m_s: new Float64Array(d.length).fill(20),
  };
  await storeWeather(
    s.kv,
    [{ point: POINT, start: d.startMs, values: w }],
    later,
    "later forecast",
  );
  await recordDeliveries(
    s.kv,
    [{ point: POINT, fromMs: d.startMs, toMs: d.startMs + d.length * 900_000 }],
    later,
    "later forecast",
  );
  // Through the service path: the deliveries mark the days stale, the step runs again.
  await markLearnedInputs(s.kv, { source: "weather", points: [POINT] }, { nowMs: later, by: "t" });
  const again = await generateForecasts(s.kv, TOMORROW, { ...STEP, nowMs: CUTOFF });
  assert.equal(again.learned_refresh?.ran, true, "the refresh ran again");
  assert.equal(again.learned_refresh?.computed, 1, "the location was fitted again");
  const [after] = await learnedForecastsOf(s.kv, TOMORROW, [LEARNED_MALO]);
  assert.deepEqual(after?.values, before?.values);
  // At a cut-off after them, both count: the forecast changes.
  await markLearnedInputs(s.kv, { source: "actuals", market_locations: 1 }, {
    nowMs: later,
    by: "t",
  });
  await generateForecasts(s.kv, TOMORROW, { ...STEP, nowMs: later + 60_000 });
  const [now] = await learnedForecastsOf(s.kv, TOMORROW, [LEARNED_MALO]);
  assert.notDeepEqual(now?.values, before?.values);
});

Deno.test("learned forecasts: a metered location without customer forecast is in the open position with its learned values", async () => {
  await using s = await seeded();
  const before = await aggregateDay(s.kv, TOMORROW, {
    by: "t",
    nowMs: CUTOFF,
    activeAreas: [AREA],
    region: "DE",
  });
  assert.equal(before.counts.missing_forecast, 1, "without the step it has no forecast");
  await generateForecasts(s.kv, TOMORROW, { ...STEP, nowMs: CUTOFF });
  const agg = await aggregateDay(s.kv, TOMORROW, {
    by: "t",
    nowMs: CUTOFF,
    activeAreas: [AREA],
    region: "DE",
  });
  assert.equal(agg.counts.market_locations, 1);
  assert.equal(agg.counts.missing_forecast, 0);
  const [stored] = await learnedForecastsOf(s.kv, TOMORROW, [LEARNED_MALO]);
  agg.areas[AREA].forEach((mw, i) => assert.equal(mw, Math.round(stored!.values[i] * 1000) / 1e6));
  const state = (await readDay(s.kv, TOMORROW)).value!;
  assert.equal(state.steps.aggregated?.version, state.input_version);
});

Deno.test("learned forecasts after delivery: the settlement counts the location as source learned, and what it saved against the week before", async () => {
  const dir = await tempDir("bridge-learned-");
  const kvPath = `${dir.path}/t.kv`;
  const kv = await Deno.openKv(kvPath);
  await seedLearned(kv, {
    firstDay: "2020-09-01",
    lastDay: "2020-11-08",
    weatherLastDay: TOMORROW,
  });
  await generateForecasts(kv, TOMORROW, { ...STEP, nowMs: CUTOFF });
  const [f] = await learnedForecastsOf(kv, TOMORROW, [LEARNED_MALO]);
  // Tomorrow delivered: its actuals and a reBAP of 100 EUR/MWh, the week before from the history.
  await seedLearned(kv, { firstDay: TOMORROW, lastDay: TOMORROW });
  const d = localDay(TOMORROW);
  await storePrices(
    kv,
    Array.from(
      { length: d.length },
      (_, i) => ({ start: d.startMs + i * 900_000, short: 100, long: 100 }),
    ),
    "rebap",
    "test",
    CUTOFF + 2 * 86_400_000,
  );
  kv.close();
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0", ACTIVE_CONTROL_AREAS: AREA }), {
    kvPath,
    clock: new FakeClock(CUTOFF + 2 * 86_400_000),
  });
  try {
    const r = await call(`${s.url}/v1/delivery-days/${TOMORROW}/settlement`, {
      headers: { "x-api-key": PROC },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const source = (r.body as DaySettlement).areas[0].accuracy.by_source
      .find((x) => x.source === "learned");
    assert.ok(source, JSON.stringify((r.body as DaySettlement).areas[0].accuracy.by_source));
    assert.equal(source.locations, 1);
    // Computed here from the history: Σ (|week before − actual| − |learned − actual|) × 0.25 h.
    const h = historyKw();
    const at = new Map(h.startMs.map((ms, i) => [ms, h.load[i]]));
    const w = localDay("2020-11-03");
    let kwh = 0;
    for (let i = 0; i < d.length; i++) {
      const a = at.get(d.startMs + i * 900_000)!;
      const b = at.get(w.startMs + w.indexOfSlot[d.slots[i]] * 900_000)!;
      kwh += (Math.abs(b - a) - Math.abs(f!.values[i] - a)) * 0.25;
    }
    assert.equal(source.saved?.replaced, "load_7_days_before");
    assert.ok(
      Math.abs(source.saved!.mwh - kwh / 1000) < 1e-6,
      `${source.saved!.mwh} ≠ ${kwh / 1000}`,
    );
    assert.ok(source.saved!.mwh > 0, "the learned forecast beat the week before on that day");
    assert.ok(Math.abs(source.saved!.eur! - kwh / 1000 * 100) < 0.01);
    assert.equal(source.saved!.priced_quarter_hours, d.length);
  } finally {
    await s.close({ keepDir: true });
    await dir.remove();
  }
});
