/**
 * Wire shapes of market-location master data (docs/pipeline.md, "Market locations"): the path
 * parameter, the request bodies of the single and the batch upsert, and the stored record as
 * answered. One zod schema per shape.
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";
import { maloProblem } from "../domain/malo.ts";
import { PROFILE_CODES } from "../domain/slp/profile.ts";

/** Path parameter: a MaLo-ID with a valid check digit. */
export const MaloId = z.string().superRefine((v, ctx) => {
  const p = maloProblem(v);
  if (p) {
    ctx.addIssue({
      code: "custom",
      message: `not a valid MaLo-ID: ${p}`,
      params: { type: "value_error.malo_id" },
    });
  }
});

/** An EIC with a valid check character. */
export const Eic = z.string().superRefine((v, ctx) => {
  const p = eicProblem(v);
  if (p) {
    ctx.addIssue({
      code: "custom",
      message: `not a valid EIC: ${p}`,
      params: { type: "value_error.eic" },
    });
  }
});

/** The fields of a market location, as sent. */
const LOCATION_FIELDS = {
  control_area: Eic,
  direction: z.enum(["consumption", "generation"]),
  standard_load_profile: z.enum(PROFILE_CODES).optional(),
  annual_kwh: z.number().positive().max(1e10).optional(),
  name: z.string().max(200).optional(),
};

/** A profile needs its annual energy (docs/pipeline.md, "Market locations"). */
function profileNeedsEnergy(
  v: { standard_load_profile?: string; annual_kwh?: number },
  ctx: z.RefinementCtx,
): void {
  if (v.standard_load_profile && v.annual_kwh === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["annual_kwh"],
      message: "required with standard_load_profile (annual energy in kWh)",
      params: { type: "missing" },
    });
  }
}

/** Body of `PUT /v1/market-locations/{malo_id}`. */
export const MarketLocationInput = z.strictObject(LOCATION_FIELDS).superRefine(profileNeedsEnergy);

/** One item of the batch upsert: the MaLo-ID and the fields. */
export const MarketLocationItem = z.strictObject({ malo_id: MaloId, ...LOCATION_FIELDS })
  .superRefine(profileNeedsEnergy);

/** A stored market location: the input fields, the MaLo-ID and `updated_at` (ISO-8601 UTC). */
export const MarketLocationSchema = z.object({
  malo_id: z.string(),
  control_area: z.string(),
  direction: z.enum(["consumption", "generation"]),
  standard_load_profile: z.enum(PROFILE_CODES).optional(),
  annual_kwh: z.number().optional(),
  name: z.string().optional(),
  updated_at: z.string(),
});

/** Largest batch of `PUT /v1/market-locations` (one KV atomic). */
export const MAX_LOCATION_BATCH = 500;

/** Body of the batch upsert: `{market_locations: [{malo_id, ...fields}]}`. */
export const MarketLocationBatch = z.strictObject({
  market_locations: z.array(MarketLocationItem).min(1).max(
    MAX_LOCATION_BATCH,
    `at most ${MAX_LOCATION_BATCH} market locations per request`,
  ),
});
