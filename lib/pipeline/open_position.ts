/**
 * The open position of one delivery day from its inputs (docs/pipeline.md, "Aggregation"):
 * per active control area, kW per quarter-hour, consumption positive and generation negative.
 *
 * Profile locations are summed per class: `sign × shape(profile, day, region) × Σ annual kWh`
 * (BDEW, `lib/domain/slp/profile.ts`), equal to the sum of the per-location profile values up to
 * floating-point rounding. A customer forecast replaces its location's profile value: the
 * location's own `shape × annual kWh` is taken out of its class's sum (once per class, for all its
 * locations with a customer forecast) and the forecast's values are added. Pure: no storage, no
 * clock; synchronous work proportional to the classes plus the customer forecasts' values (the
 * profile shapes are computed once per day and profile and cached, see `warmShapes`).
 * @module
 */
import { quarterHourCount } from "../domain/delivery_day.ts";
import { type ProfileCode, sharedProfileShape } from "../domain/slp/profile.ts";
import type { DayInputs } from "./day_inputs.ts";
import { annualWh } from "./profile_classes.ts";

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
  const addShape = (acc: Float64Array, profile: ProfileCode, k: number) => {
    const shape = sharedProfileShape(profile, day, opts.region);
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
  // The profile values that customer forecasts replace, summed per area, direction and profile
  // (annual Wh), taken out once per class below.
  const replaced = new Map<
    string,
    { acc: Float64Array; profile: ProfileCode; wh: number; s: number }
  >();
  for (const { location: loc, forecast } of inputs.customers) {
    if (!loc) {
      counts.unknown_location++;
      continue;
    }
    const acc = sums[loc.control_area];
    if (!acc) continue; // counted as inactive with its class
    const s = sign(loc.direction);
    const profiled = Boolean(loc.standard_load_profile) && opts.withProfiles;
    if (profiled) {
      const k = `${loc.control_area}|${loc.direction}|${loc.standard_load_profile}`;
      const r = replaced.get(k) ??
        { acc, profile: loc.standard_load_profile!, wh: 0, s };
      r.wh += annualWh(loc);
      replaced.set(k, r);
    }
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
  for (const r of replaced.values()) {
    addShape(r.acc, r.profile, -r.s * r.wh / 1000);
  }
  return { sums, counts };
}

const sign = (d: "consumption" | "generation") => d === "generation" ? -1 : 1;

/**
 * Computes (and caches) the shape of every profile among `classes` for `day`, yielding to the
 * event loop after each: the first computation of a day's shapes takes a few milliseconds per
 * profile (day types, holidays, clock changes), which must not hold the API for the whole set.
 */
export async function warmShapes(
  classes: readonly { profile: ProfileCode | null }[],
  day: string,
  region: string,
): Promise<void> {
  for (const p of new Set(classes.map((c) => c.profile))) {
    if (!p) continue;
    sharedProfileShape(p, day, region);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
