/**
 * The figures of missing forecasts by energy (docs/console_attention.md, "Missing forecasts by energy") and
 * their share, apart from their computation (`./missing_energy.ts`) so that the day state can read
 * them without importing the inputs.
 * @module
 */

/** The day's expected energy and what of it lies with locations without forecast. */
export interface MissingEnergy {
  /** Σ expected energy of the locations whose energy is known, MWh (3 decimals). */
  expected_mwh: number;
  /** The part of `expected_mwh` that lies with locations without forecast, MWh (3 decimals). */
  missing_mwh: number;
  /** Locations without forecast whose energy cannot be known (no load profile). */
  unknown_locations: number;
}

/**
 * The share (0–1, 4 decimals) of the day's known expected energy that lies with the `missing`
 * locations without forecast; `null` when it says nothing: no energy known, or none of the missing
 * locations' energy known. With some of them unknown it is a lower bound (their energy would add
 * to both sides of the fraction).
 */
export function missingEnergyShare(e: MissingEnergy, missing: number): number | null {
  if (!(e.expected_mwh > 0) || e.unknown_locations >= missing) return null;
  return Math.round((e.missing_mwh / e.expected_mwh) * 10_000) / 10_000;
}
