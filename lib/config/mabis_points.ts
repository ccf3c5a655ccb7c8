/**
 * The runtime field `mabis_metering_points` (docs/actuals.md, "Balancing-group sums"; docs/
 * configuration.md): the control area and balancing group of each MaBiS metering point whose
 * balancing-group sum the DSO sends (MSCONS Prüfidentifikator 13003 names a sum by its metering
 * point, `LOC+172+<Zählpunktbezeichnung>`, not by balancing group and area). Entries
 * `<Zählpunktbezeichnung>=<control-area EIC>/<balancing-group EIC>`; validated (a 33-character
 * designation `DE…`, both EICs with their check character, a metering point listed once) and
 * audited like every field (`config_changed`). A sum for a metering point not listed here is
 * refused, naming it; where every metering point of a control area has a complete sum for a day,
 * their sum is the area's settlement actual.
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";
import { meteringPointProblem } from "../domain/metering_point.ts";
import { keysListedOnce } from "./field_values.ts";

const ENTRY = /^([^=]+)=([^/]+)\/(.+)$/;

const entry = z.string().regex(
  ENTRY,
  "expected <Zählpunktbezeichnung>=<control-area EIC>/<balancing-group EIC>",
).superRefine((v, ctx) => {
  const [, point, area, group] = ENTRY.exec(v) ?? [];
  if (!point) return;
  const wrong = meteringPointProblem(point);
  if (wrong) {
    ctx.addIssue({
      code: "custom",
      message: wrong,
      params: { type: "value_error.metering_point" },
    });
  }
  for (const [what, eic] of [["control area", area], ["balancing group", group]]) {
    const problem = eicProblem(eic);
    if (problem) {
      ctx.addIssue({
        code: "custom",
        message: `not a valid EIC for the ${what} ${eic}: ${problem}`,
        params: { type: "value_error.eic" },
      });
    }
  }
});

/** The field's definition (a `FieldDef` of `./fields.ts`). */
export const MABIS_METERING_POINTS_FIELD = {
  env: "MABIS_METERING_POINTS",
  schema: z.array(entry).max(500).superRefine(keysListedOnce("metering point")),
  default: [] as string[],
  fromEnv: (raw: string) => raw.split(",").map((s) => s.trim()).filter(Boolean),
  description:
    "control area and balancing group of each MaBiS metering point whose balancing-group sum arrives (Zählpunktbezeichnung=control-area EIC/balancing-group EIC, …): a sum for a point not listed is refused",
};

/** Where a metering point's sum belongs. */
export interface MeteringPointPlace {
  control_area: string;
  balancing_group: string;
}

/** `mabis_metering_points` entries as a map from metering point to its place. */
export function meteringPointMap(
  entries: readonly string[],
): Map<string, MeteringPointPlace> {
  const out = new Map<string, MeteringPointPlace>();
  for (const e of entries) {
    const m = ENTRY.exec(e);
    if (m) out.set(m[1], { control_area: m[2], balancing_group: m[3] });
  }
  return out;
}

/** The metering points of one control area, per `mabis_metering_points`. */
export function meteringPointsOf(entries: readonly string[], controlArea: string): string[] {
  return [...meteringPointMap(entries)].filter(([, p]) => p.control_area === controlArea)
    .map(([point]) => point);
}
