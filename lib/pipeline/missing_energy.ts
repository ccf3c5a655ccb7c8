/**
 * The energy side of missing forecasts (docs/console_attention.md, "Missing forecasts by energy"): how
 * much of the day's expected energy lies with the market locations that the aggregate left
 * without a forecast. A count alone misleads — 20 of 400 locations may be 5 % of the locations
 * but all of the day's generation.
 *
 * Expected energy of a market location (of an active control area) for the day, MWh, by absolute
 * value (consumption and generation alike):
 * - with a customer forecast of the right length: the forecast's energy, Σ |kW| × 0.25 h;
 * - else with a standard load profile and annual energy: its profile energy of the day,
 *   Σ shape(profile, day, region) × annual kWh × 0.25 h (BDEW, `lib/domain/slp/profile.ts`);
 * - else (no profile, e.g. a PV park that only customer forecasts describe): unknown. Its
 *   forecast of another day is not used: another day's weather says nothing about this one.
 *
 * Which locations are missing follows `openPosition` (`./open_position.ts`) exactly, so the known
 * and unknown missing locations add up to its `missing_forecast` count.
 * @module
 */
import { quarterHourCount } from "../domain/delivery_day.ts";
import { type ProfileCode, sharedProfileShape } from "../domain/slp/profile.ts";
import type { DayInputs } from "./day_inputs.ts";
import type { MissingEnergy } from "./missing_energy_share.ts";
import { annualWh } from "./profile_classes.ts";

export { type MissingEnergy, missingEnergyShare } from "./missing_energy_share.ts";

/**
 * The missing energy of `day` from the same inputs and options as `openPosition`.
 * @param opts.withProfiles whether profile locations count as forecast (the day's forecast step
 *   ran); before, their profile energy is missing
 * @throws like `sharedProfileShape` (unknown profile or region)
 */
export function missingEnergy(
  inputs: DayInputs,
  day: string,
  opts: { region: string; activeAreas: readonly string[]; withProfiles: boolean },
): MissingEnergy {
  const n = quarterHourCount(day);
  const active = new Set(opts.activeAreas);
  const perAnnualKwh = new Map<ProfileCode, number>();
  /** MWh of the day per annual Wh of `profile`. */
  const profileMwhPerWh = (profile: ProfileCode) => {
    let e = perAnnualKwh.get(profile);
    if (e === undefined) {
      e = 0;
      for (const kw of sharedProfileShape(profile, day, opts.region)) e += Math.abs(kw) * 0.25;
      perAnnualKwh.set(profile, e);
    }
    return e / 1e6; // kWh per annual kWh → MWh per annual Wh
  };
  let expected = 0;
  let missing = 0;
  let unknown = 0;
  for (const c of inputs.classes) {
    if (!active.has(c.control_area)) continue;
    if (c.profile) {
      const e = profileMwhPerWh(c.profile) * c.wh;
      expected += e;
      if (!opts.withProfiles) missing += e;
    } else unknown += c.count;
  }
  for (const { location: loc, forecast } of inputs.customers) {
    if (!loc || !active.has(loc.control_area)) continue;
    const valid = forecast.values.length === n;
    let fe = 0;
    if (valid) { for (const kw of forecast.values) fe += Math.abs(kw) * 0.25 / 1000; }
    if (loc.standard_load_profile) {
      const pe = profileMwhPerWh(loc.standard_load_profile) * annualWh(loc);
      if (valid) {
        // The forecast replaces the profile; a location counted missing is not any more.
        expected += fe - pe;
        if (!opts.withProfiles) missing -= pe;
      } else if (opts.withProfiles) missing += pe;
    } else if (valid) {
      expected += fe;
      unknown--;
    }
  }
  const mwh = (x: number) => Math.max(0, Math.round(x * 1000) / 1000) + 0;
  return { expected_mwh: mwh(expected), missing_mwh: mwh(missing), unknown_locations: unknown };
}
