/**
 * The forecast each metered market location had for a delivery day, by source, for the
 * settlement's error by source (docs/settlement.md, "Accuracy"): the customer's forecast, a
 * learned forecast where it counted instead, or the customer's forecast corrected by its errors
 * (`effectiveForecast`, docs/forecasting.md "In the service") — and, beside a learned one, the
 * forecast it replaced, to say what it saved: the load of the same quarter-hour 7 days before for
 * a learned forecast (what a location without a model would be scheduled by; without any forecast
 * it would be missing from the schedule altogether, which is worse), the customer's raw forecast
 * for a corrected one.
 * @module
 */
import { addDays } from "../domain/delivery_day.ts";
import { localDay } from "../forecasting/local_days.ts";
import {
  type EffectiveForecast,
  effectiveForecast,
  forecastsOfDay,
  learnedForecastsOfDay,
  type ValuesForecast,
} from "../pipeline/forecasts.ts";
import { actualsOfLocations } from "./actuals_store.ts";

/** One location's forecast of the day (kW per quarter-hour) and what it replaced. */
export interface ForecastSource {
  values: ArrayLike<number>;
  source: EffectiveForecast["source"];
  /** The replaced forecast, kW per quarter-hour (`NaN` where unknown); `null` for a customer forecast. */
  replaced: ArrayLike<number> | null;
}

/**
 * The day's customer and learned forecasts by MaLo-ID, each the one that counted; read one through
 * {@link countedForecast}. With `replaced: false` the forecast a learned one replaced is not read
 * (`replaced` stays `null`: a caller that does not say what it saved).
 */
export async function forecastSources(
  kv: Deno.Kv,
  day: string,
  opts: { replaced?: boolean } = {},
): Promise<Map<string, ForecastSource>> {
  const [stored, learned] = await Promise.all([
    forecastsOfDay(kv, day),
    learnedForecastsOfDay(kv, day),
  ]);
  const customer = new Map<string, ValuesForecast>();
  for (const [id, e] of stored) {
    const f = e.value;
    if (f.source === "customer" && "values" in f) customer.set(id, f);
  }
  const out = new Map<string, ForecastSource>();
  for (const [id, c] of customer) {
    if (!learned.has(id)) out.set(id, { values: c.values, source: "customer", replaced: null });
  }
  const learnedIds: string[] = [];
  for (const [id, l] of learned) {
    const f = effectiveForecast(customer.get(id) ?? null, l);
    if (!f) continue;
    const replaced = f.source === "customer_corrected" ? customer.get(id)!.values : null;
    out.set(id, { values: f.values, source: f.source, replaced });
    if (f.source === "learned") learnedIds.push(id);
  }
  if (opts.replaced === false) return out;
  // The week before of each learned location, by wall-clock quarter-hour.
  const week = addDays(day, -7);
  const d = localDay(day), w = localDay(week);
  const before = await actualsOfLocations(kv, week, learnedIds.sort());
  learnedIds.forEach((id, k) => {
    const rec = before[k];
    out.get(id)!.replaced = Float64Array.from(
      d.slots,
      (slot) => rec ? rec.kwh[w.indexOfSlot[slot]] * 4 : NaN,
    );
  });
  return out;
}

/**
 * The forecast a metered location was scheduled with, of {@link forecastSources}: a location with
 * a standard load profile keeps its profile unless its customer sent a forecast (a learned one is
 * not made for it); `undefined`: its profile, or none.
 */
export function countedForecast(
  sources: ReadonlyMap<string, ForecastSource>,
  id: string,
  profile: string | undefined,
): ForecastSource | undefined {
  const found = sources.size ? sources.get(id) : undefined;
  return found && (found.source === "customer" || !profile) ? found : undefined;
}
