/**
 * What a delivery day's open position is made of (docs/pipeline.md, "Forecasts" and
 * "Aggregation"): the profile classes of the master data (`./profile_classes.ts`) and the day's
 * customer forecasts with their market locations as they are now. Read by the forecast step and
 * by aggregation; neither lists every market location.
 *
 * Generated forecasts stored per market location by earlier versions (one record per location
 * and day, either layout of `./forecasts.ts`) are no longer read: they are reported here as
 * `legacy` keys so that the forecast step can delete them.
 * @module
 */
import {
  type EffectiveForecast,
  effectiveForecast,
  forecastsOfDay,
  learnedForecastsOfDay,
  type StoredForecast,
  type ValuesForecast,
} from "./forecasts.ts";
import { type MarketLocation, marketLocationsByIds } from "./market_locations.ts";
import { profileClasses } from "./master_data.ts";
import { classesOf, type ProfileClass } from "./profile_classes.ts";

/**
 * One forecast with values of the day — a customer forecast, or a learned one where it counts
 * instead (`effectiveForecast`, docs/forecasting.md, "In the service") — and its market location
 * (`null`: no longer registered).
 */
export interface CustomerInput {
  malo_id: string;
  forecast: Pick<ValuesForecast, "values">;
  location: MarketLocation | null;
  /** Whose values: the customer's, a learned forecast's, a corrected customer forecast's. */
  source: EffectiveForecast["source"];
}

/** The inputs of one day. */
export interface DayInputs {
  /** Every class of the master data (all control areas, also inactive ones). */
  classes: ProfileClass[];
  customers: CustomerInput[];
  /** Keys of generated forecasts stored per location by an earlier version. */
  legacy: Deno.KvKey[];
}

/**
 * Reads the day's inputs: the class table (built first in a store from before it), the day's
 * stored forecasts, and the market location of each customer forecast — all as they are now, so
 * a customer forecast's location is taken out of the class it is in.
 * @throws {import("../store/kv.ts").KvContentionError} when the class table cannot be built
 */
export async function readDayInputs(kv: Deno.Kv, day: string): Promise<DayInputs> {
  const [table, stored, learned] = await Promise.all([
    profileClasses(kv),
    forecastsOfDay(kv, day),
    learnedForecastsOfDay(kv, day),
  ]);
  const classes = classesOf(table.table);
  const customer = new Map<string, ValuesForecast>();
  const legacy: Deno.KvKey[] = [];
  for (const [malo, e] of stored) {
    const f: StoredForecast = e.value;
    if (f.source === "customer" && "values" in f) customer.set(malo, f);
    else legacy.push(e.key);
  }
  const ids = [...new Set([...customer.keys(), ...learned.keys()])].sort();
  const locations = await marketLocationsByIds(kv, ids);
  const customers: CustomerInput[] = [];
  ids.forEach((malo, i) => {
    const location = locations[i];
    // A learned forecast stands only for a metered location that did not turn to `customer`
    // since (the next forecast step deletes it).
    const l = learned.get(malo) ?? null;
    const usable = l && location && !location.standard_load_profile &&
      (l.method === "customer_corrected" || location.forecast_method !== "customer");
    const f = effectiveForecast(customer.get(malo) ?? null, usable ? l : null);
    if (f) customers.push({ malo_id: malo, forecast: f, location, source: f.source });
  });
  return { classes, customers, legacy };
}
