/**
 * Parties of a German schedule (docs/fahrplan.md): the TSO that receives
 * the schedule of each control area, by the control area's EIC. The TSO EICs are the system
 * operators' X codes from the ENTSO-E EIC register.
 * @module
 */

/** Control area EIC → EIC of its TSO (role A04, receiver of the schedule). */
export const TSO_OF_CONTROL_AREA: Readonly<Record<string, string>> = Object.freeze({
  "10YDE-RWENET---I": "10XDE-RWENET---W", // Amprion
  "10YDE-EON------1": "10XDE-EON-NETZ-C", // TenneT DE
  "10YDE-VE-------2": "10XDE-VE-TRANSMK", // 50Hertz
  "10YDE-ENBW-----N": "10XDE-ENBW--TNGX", // TransnetBW
});

/**
 * The TSO EIC of a control area: `overrides` first, then {@link TSO_OF_CONTROL_AREA}.
 * @param controlArea control area EIC (e.g. `10YDE-RWENET---I`)
 * @param overrides control area EIC → TSO EIC, replacing the built-in entry
 * @returns the TSO's EIC, or `""` when none is known (validation then refuses the document)
 */
export function tsoOf(
  controlArea: string,
  overrides: Readonly<Record<string, string>> = {},
): string {
  return overrides[controlArea] ?? TSO_OF_CONTROL_AREA[controlArea] ?? "";
}
