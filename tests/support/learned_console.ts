/**
 * The learned forecasts as the console shows them (issue 33, item 6), for browser tests: the
 * service on a temp-file KV at a fake clock, one control area (Amprion), five market locations
 * reading the OpenSTEF history (tests/support/learned.ts) as their actuals, each delivered when a
 * DSO would (a day's actuals at 06:00 Berlin the next day, weather at 06:00 the day before):
 *
 * - {@link LEARNED}: actuals since 1 Sep 2020 and its point's weather — a learned forecast;
 * - {@link TEN}: actuals of the last 10 days — the load of 7 days before, labelled;
 * - {@link THREE}: actuals of the last 3 days — no forecast (an attention item);
 * - {@link CORRECTED}: 5 % of that load (its errors in kW), its customer's forecasts 20 % high,
 *   each sent the day before — the customer forecast, corrected;
 * - {@link HOUSE}: a metered location settled by the load profile H0, yesterday's actuals only.
 *
 * The forecast step ran through the service at yesterday's gate closure (Mon 23 Nov, 11:00) and
 * this morning; yesterday's actuals and reBAP are in. The clock stands at Wed 25 Nov 2020, 10:00
 * Berlin: tomorrow's gate closure (12:00) is ahead.
 * @module
 */
import assert from "node:assert/strict";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { FakeClock } from "../../lib/clock.ts";
import { addDays } from "../../lib/domain/delivery_day.ts";
import { localDay, localTimeOn } from "../../lib/forecasting/local_days.ts";
import { seedHistory } from "../../dev/learned_history.ts";
import { ingestForecasts } from "../../lib/pipeline/forecasts.ts";
import { putMarketLocation } from "../../lib/pipeline/market_locations.ts";
import { QH_MS } from "../../lib/settlement/series.ts";
import { call, startServer, type TestServer } from "./app.ts";
import { keysEnv, PROC } from "./keys.ts";
import { AREA, historyKw, LEARNED_MALO, maloOf, POINT, seedLearned } from "./learned.ts";
import { tempDir } from "./temp.ts";

export const YESTERDAY = "2020-11-24";
export const TODAY = "2020-11-25";
export const TOMORROW = "2020-11-26";
/** Wed 25 Nov 2020, 10:00 Berlin. */
export const NOW = localTimeOn(TODAY, "10:00");

export const LEARNED = LEARNED_MALO;
export const TEN = maloOf("5100000012");
export const THREE = maloOf("5100000011");
export const CORRECTED = maloOf("5200000001");
export const HOUSE = maloOf("5300000001");

/** The process key's header. */
export const proc = { "x-api-key": PROC, "content-type": "application/json" };

/** The running service and its clean-up. */
export interface LearnedConsole {
  s: TestServer;
  clock: FakeClock;
  close(): Promise<void>;
}

/** The load of {@link CORRECTED}: the history's 5 % (some 250 kW: its errors in kW). */
function coldStore() {
  const h = historyKw();
  return { ...h, load: h.load.map((v) => v * 0.05) };
}

/** The customer's forecasts of {@link CORRECTED}: its load × 1.2, each the day before at 09:00. */
async function customerForecasts(kv: Deno.Kv, first: string, last: string) {
  const h = coldStore();
  const at = new Map(h.startMs.map((ms, i) => [ms, h.load[i]]));
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const d = localDay(day);
    const values = Array.from({ length: d.length }, (_, i) => at.get(d.startMs + i * QH_MS)! * 1.2);
    await ingestForecasts(
      kv,
      [{ malo_id: CORRECTED, delivery_day: day, values }],
      "customer",
      localTimeOn(addDays(day, -1), "09:00"),
    );
  }
}

const forecastStep = async (s: TestServer, day: string) => {
  const r = await call(`${s.url}/v1/delivery-days/${day}/forecast`, {
    method: "POST",
    headers: proc,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
};

/** Builds the store, starts the service and runs the forecast steps (see the module doc). */
export async function learnedConsole(): Promise<LearnedConsole> {
  const dir = await tempDir("bridge-learned-console-");
  const kvPath = `${dir.path}/bridge.kv`;
  const kv = await Deno.openKv(kvPath);
  try {
    await seedLearned(kv, {
      firstDay: "2020-09-01",
      lastDay: YESTERDAY,
      weatherLastDay: TOMORROW,
      fields: { name: "Hall 7" },
    });
    await seedLearned(kv, {
      maloId: TEN,
      firstDay: addDays(YESTERDAY, -9),
      lastDay: YESTERDAY,
      fields: { name: "Depot" },
    });
    await seedLearned(kv, {
      maloId: THREE,
      firstDay: addDays(YESTERDAY, -2),
      lastDay: YESTERDAY,
      fields: { name: "New site" },
    });
    await putMarketLocation(kv, CORRECTED, {
      control_area: AREA,
      direction: "consumption",
      holiday_region: "DE-NW",
      name: "Cold store",
    }, Date.parse("2020-08-01T00:00:00Z"));
    await seedHistory(kv, {
      maloId: CORRECTED,
      point: POINT,
      history: coldStore(),
      firstDay: "2020-09-20",
      lastDay: YESTERDAY,
    });
    await customerForecasts(kv, "2020-09-20", TOMORROW);
    await seedLearned(kv, {
      maloId: HOUSE,
      firstDay: YESTERDAY,
      lastDay: YESTERDAY,
      fields: {
        name: "Housing",
        weather_point: undefined,
        standard_load_profile: "H0",
        annual_kwh: 40_000_000,
      },
    });
  } finally {
    kv.close();
  }
  const clock = new FakeClock(localTimeOn(addDays(YESTERDAY, -1), "11:00"));
  const s = await startServer(
    keysEnv({
      RATE_LIMIT_PER_MINUTE: "0",
      ACTIVE_CONTROL_AREAS: AREA,
      ORCHESTRATOR_HORIZON_DAYS: "2",
    }),
    { kvPath, clock },
  );
  const close = async () => {
    await s.close({ keepDir: true });
    await dir.remove();
  };
  try {
    // Yesterday's forecasts, made before its gate closure; then this morning's for tomorrow.
    await forecastStep(s, YESTERDAY);
    clock.set(NOW);
    await forecastStep(s, TOMORROW);
    const p = await call(`${s.url}/v1/imbalance-prices`, {
      method: "POST",
      headers: { ...proc, "content-type": "text/csv" },
      body: rebapFile(YESTERDAY),
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
  } catch (err) {
    await close();
    throw err;
  }
  return { s, clock, close };
}
