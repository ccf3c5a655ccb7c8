/**
 * The runtime field `balancing_areas` (docs/actuals.md, "Balancing-group sums"; docs/
 * configuration.md): which control area each balancing area (Bilanzierungsgebiet) lies in, as
 * `balancing area EIC=control area EIC` entries, like `tso_party_eics`. Where every balancing
 * area of a control area has a balancing-group sum (MSCONS `LOC+237`) for a day, that sum is the
 * area's settlement actual. Validated (both EICs with their check character, the control area one
 * of `active_control_areas` is not required: a sum may arrive before the area is active; a
 * balancing area listed once) and audited like every field (`config_changed`).
 * @module
 */
import { z } from "zod";
import { eicPair, keysListedOnce } from "./field_values.ts";

const entry = eicPair("balancing-area EIC=control-area EIC");

/** The field's definition (a `FieldDef` of `./fields.ts`). */
export const BALANCING_AREAS_FIELD = {
  env: "BALANCING_AREAS",
  schema: z.array(entry).max(200).superRefine(keysListedOnce("balancing area")),
  default: [] as string[],
  fromEnv: (raw: string) => raw.split(",").map((s) => s.trim()).filter(Boolean),
  description:
    "control area of each balancing area (balancing-area EIC=control-area EIC, …): where every balancing area of a control area has a balancing-group sum, it is the settlement actual",
};

/** `balancing_areas` entries as a map from balancing-area EIC to control-area EIC. */
export function balancingAreaMap(entries: readonly string[]): Record<string, string> {
  return Object.fromEntries(entries.map((e) => e.split("=") as [string, string]));
}

/** The balancing areas of one control area, per `balancing_areas`. */
export function balancingAreasOf(entries: readonly string[], controlArea: string): string[] {
  return entries.map((e) => e.split("=")).filter(([, ca]) => ca === controlArea).map(([ba]) => ba);
}
