/**
 * Missing forecasts by energy (docs/console_attention.md, "Missing forecasts by energy"): the share of the
 * day's expected energy that lies with the locations without forecast — profile energy for
 * standard-load-profile locations, forecast energy where a customer forecast replaces it, unknown
 * for locations without a profile — and the known and unknown missing locations add up to the
 * aggregate's count, before and after the day's forecast step.
 */
import assert from "node:assert/strict";
import { profileShape } from "../../lib/domain/slp/profile.ts";
import type { DayInputs } from "../../lib/pipeline/day_inputs.ts";
import { missingEnergy, missingEnergyShare } from "../../lib/pipeline/missing_energy.ts";
import { openPosition } from "../../lib/pipeline/open_position.ts";
import { coverageWarnings } from "../../lib/pipeline/day_state.ts";

const DAY = "2026-11-25";
const A = "10YDE-RWENET---I";
const X = "10YDE-EON------1"; // inactive
type Location = DayInputs["customers"][number]["location"];
const loc = (l: Record<string, unknown>) => ({ control_area: A, ...l }) as unknown as Location;
const forecast = (n: number, kw: number) =>
  ({ values: Array(n).fill(kw) }) as unknown as DayInputs["customers"][number]["forecast"];

/** H0: 3,000,000 kWh/a in A (3 locations), 5 in X; 2 PV parks in A without a profile. */
const INPUTS: DayInputs = {
  classes: [
    { control_area: A, direction: "consumption", profile: "H0", count: 3, wh: 3e9 },
    { control_area: A, direction: "generation", profile: null, count: 2, wh: 0 },
    { control_area: X, direction: "consumption", profile: "H0", count: 5, wh: 5e9 },
  ],
  customers: [
    // An H0 location of 1,000,000 kWh/a whose customer forecast (100 kW all day) replaces it.
    {
      malo_id: "1",
      location: loc({ direction: "consumption", standard_load_profile: "H0", annual_kwh: 1e6 }),
      forecast: forecast(96, 100),
      source: "customer",
    },
    // A PV park with a forecast: −200 kW all day is 4.8 MWh by absolute value.
    {
      malo_id: "2",
      location: loc({ direction: "generation" }),
      forecast: forecast(96, -200),
      source: "customer",
    },
    // An H0 location of 1,000,000 kWh/a whose forecast has the wrong length: missing.
    {
      malo_id: "3",
      location: loc({ direction: "consumption", standard_load_profile: "H0", annual_kwh: 1e6 }),
      forecast: forecast(95, 100),
      source: "customer",
    },
  ],
  legacy: [],
};
/** MWh of one H0 location of 1,000,000 kWh/a on DAY. */
const E1 = profileShape("H0", DAY, "DE").reduce((a, kw) => a + kw * 0.25, 0) * 1e6 / 1000;
const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 0.0011, `${a} ≠ ${b}`);

for (const withProfiles of [true, false]) {
  Deno.test(`missing energy ${withProfiles ? "after" : "before"} the forecast step`, () => {
    const opts = { region: "DE", activeAreas: [A], withProfiles };
    const e = missingEnergy(INPUTS, DAY, opts);
    assert.ok(E1 > 1 && E1 < 5, `H0 day energy of 1 GWh/a: ${E1} MWh`);
    // H0 class 3 E1, minus E1 replaced by 2.4 MWh of forecast, plus the PV park's 4.8 MWh.
    near(e.expected_mwh, 2 * E1 + 7.2);
    // After: the wrong-length forecast's profile energy; before: every H0 location without a
    // valid forecast (2 of 3) is missing.
    near(e.missing_mwh, withProfiles ? E1 : 2 * E1);
    assert.equal(e.unknown_locations, 1, "the PV park without forecast");
    const { counts } = openPosition(INPUTS, DAY, opts);
    assert.equal(counts.missing_forecast, withProfiles ? 2 : 3);
    const share = missingEnergyShare(e, counts.missing_forecast);
    near(share!, Math.round(e.missing_mwh / e.expected_mwh * 1e4) / 1e4);
    const [w] = coverageWarnings({ ...counts, missing_energy: e });
    assert.deepEqual(
      { ...w, missing_mwh: 0, expected_mwh: 0 },
      {
        code: "missing_forecasts",
        market_locations: counts.missing_forecast,
        share: withProfiles ? 0.4 : 0.6,
        energy_share: share,
        missing_mwh: 0,
        expected_mwh: 0,
        energy_unknown_locations: 1,
      },
    );
  });
}

Deno.test("missing energy: unknown when only locations without a profile are missing", () => {
  const inputs: DayInputs = { ...INPUTS, customers: INPUTS.customers.slice(0, 1) };
  const opts = { region: "DE", activeAreas: [A], withProfiles: true };
  const e = missingEnergy(inputs, DAY, opts);
  assert.equal(e.missing_mwh, 0);
  assert.equal(e.unknown_locations, 2);
  // 0 % would claim the missing parks carry nothing: the share is unknown instead.
  assert.equal(missingEnergyShare(e, 2), null);
  const [w] = coverageWarnings({ market_locations: 3, missing_forecast: 2, missing_energy: e });
  assert.equal(w.energy_share, null);
  assert.equal(w.energy_unknown_locations, 2);
  // An aggregate from before energy was counted: nothing claimed.
  const [old] = coverageWarnings({ market_locations: 3, missing_forecast: 2 });
  assert.deepEqual([old.energy_share, old.expected_mwh], [null, null]);
});
