/**
 * The open position of one delivery day from its inputs (docs/pipeline.md, "Aggregation"):
 * per active control area, kW per quarter-hour, consumption positive and generation negative.
 *
 * Profile locations are summed per class: `sign × shape(profile, day, region) × Σ annual kWh`
 * (BDEW, `lib/domain/slp/profile.ts`), equal to the sum of the per-location profile values up to
 * floating-point rounding. A customer forecast replaces its location's profile value: the
 * location's own `shape × annual kWh` is taken out of its class's sum and the forecast's values
 * are added. Pure: no storage, no clock.
 * @module
 */
import { quarterHourCount } from "../domain/delivery_day.ts";
import { sharedProfileShape } from "../domain/slp/profile.ts";
import type { DayInputs } from "./day_inputs.ts";
import { annualWh, type Classified } from "./profile_classes.ts";

/** How the day's market locations were counted. */
export interface OpenPositionCounts {
  /** Market locations summed (active control areas, with a forecast). */
  market_locations: number;
  /** Market locations of inactive control areas, ignored. */
  inactive_area: number;
  /** Market locations of active areas without a forecast for the day. */
  missing_forecast: number;
  /** Customer forecasts of market locations that no longer exist, ignored. */
  unknown_location: number;
}

/**
 * Sums the day.
 * @param opts.region holiday region of the profiles' day types (e.g. `DE`)
 * @param opts.activeAreas EICs of the active control areas (each gets a series, also when empty)
 * @param opts.withProfiles whether profile locations count (after the day's forecast step ran);
 *   otherwise they count as missing unless a customer forecast covers them
 * @returns kW per quarter-hour per active area, and the counts
 */
export function openPosition(
  inputs: DayInputs,
  day: string,
  opts: { region: string; activeAreas: readonly string[]; withProfiles: boolean },
): { sums: Record<string, Float64Array>; counts: OpenPositionCounts } {
  const n = quarterHourCount(day);
  const sums: Record<string, Float64Array> = {};
  for (const a of opts.activeAreas) sums[a] = new Float64Array(n);
  const counts: OpenPositionCounts = {
    market_locations: 0,
    inactive_area: 0,
    missing_forecast: 0,
    unknown_location: 0,
  };
  /** Adds `factor ×` the profile shape of `profile` to `acc`. */
  const addShape = (acc: Float64Array, profile: Classified["standard_load_profile"], k: number) => {
    const shape = sharedProfileShape(profile!, day, opts.region);
    for (let i = 0; i < n; i++) acc[i] += shape[i] * k;
  };
  for (const c of inputs.classes) {
    const acc = sums[c.control_area];
    if (!acc) {
      counts.inactive_area += c.count;
      continue;
    }
    if (c.profile && opts.withProfiles) {
      addShape(acc, c.profile, sign(c.direction) * c.wh / 1000);
      counts.market_locations += c.count;
    } else counts.missing_forecast += c.count;
  }
  for (const { location: loc, forecast } of inputs.customers) {
    if (!loc) {
      counts.unknown_location++;
      continue;
    }
    const acc = sums[loc.control_area];
    if (!acc) continue; // counted as inactive with its class
    const s = sign(loc.direction);
    const profiled = Boolean(loc.standard_load_profile) && opts.withProfiles;
    // The location's profile value leaves its class's sum; the customer's values replace it.
    if (profiled) addShape(acc, loc.standard_load_profile, -s * annualWh(loc) / 1000);
    const valid = forecast.values.length === n;
    if (valid) {
      const v = forecast.values;
      for (let i = 0; i < n; i++) acc[i] += s * v[i];
    }
    // A forecast with the wrong number of values counts as missing.
    if (profiled && !valid) {
      counts.market_locations--;
      counts.missing_forecast++;
    } else if (!profiled && valid) {
      counts.market_locations++;
      counts.missing_forecast--;
    }
  }
  return { sums, counts };
}

const sign = (d: "consumption" | "generation") => d === "generation" ? -1 : 1;
