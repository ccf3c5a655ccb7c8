/**
 * The names of the four German TSOs, by the EICs an operator sees: the control area's (a `Y`
 * code, e.g. `10YDE-RWENET---I`) and the TSO's own as receiver of a schedule (an `X` code,
 * e.g. `10XDE-RWENET---W`).
 *
 * Source: the ENTSO-E EIC register (the published list of X codes, `X_eicCodes.csv`, column
 * `eic_long_name`: 10XDE-VE-TRANSMK "50Hertz Transmission GmbH", 10XDE-RWENET---W "Amprion GmbH",
 * 10XDE-EON-NETZ-C "TenneT TSO GmbH", 10XDE-ENBW--TNGX "TransnetBW GmbH") and the control areas
 * of docs/pipeline.md ("The four German control areas"); the pairing of area and TSO is the one
 * of docs/fahrplan.md and {@link TSO_OF_CONTROL_AREA}.
 * @module
 */
import { TSO_OF_CONTROL_AREA } from "./parties.ts";

/** Short name of each German TSO (as the TSOs write it) by its control area's EIC. */
export const TSO_NAME_OF_CONTROL_AREA: Readonly<Record<string, string>> = Object.freeze({
  "10YDE-VE-------2": "50Hertz",
  "10YDE-RWENET---I": "Amprion",
  "10YDE-EON------1": "TenneT TSO",
  "10YDE-ENBW-----N": "TransnetBW",
});

const BY_EIC: ReadonlyMap<string, string> = new Map(
  Object.entries(TSO_NAME_OF_CONTROL_AREA).flatMap(([area, name]) => [
    [area, name],
    [TSO_OF_CONTROL_AREA[area], name],
  ]),
);

/**
 * The TSO's short name for a control area EIC or a TSO EIC ("Amprion" for both
 * `10YDE-RWENET---I` and `10XDE-RWENET---W`); `undefined` for any other EIC (a configured
 * override, a foreign TSO), so callers show the EIC alone rather than a guess.
 */
export function tsoName(eic: string): string | undefined {
  return BY_EIC.get(eic.trim().toUpperCase());
}
