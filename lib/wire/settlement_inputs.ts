/**
 * Wire shapes of the settlement inputs (docs/settlement.md): the answers of `POST /v1/actuals` and
 * `POST /v1/imbalance-prices`. Counts are quarter-hour values; days are local dates (Europe/Berlin).
 * @module
 */
import { z } from "zod";

/** `POST /v1/actuals` → 200. */
export const ActualsImportSchema = z.object({
  format: z.enum(["mscons", "csv", "json"]),
  market_locations: z.number().int(),
  balancing_group_sums: z.number().int(),
  /** Quarter-hours that had no value before. */
  added: z.number().int(),
  /** Quarter-hours whose earlier value was replaced by a different one (a correction). */
  replaced: z.number().int(),
  /** Quarter-hours sent again with the same value (a repeated message changes nothing). */
  unchanged: z.number().int(),
  days: z.array(z.string()),
  /** The first 20 locations and days with replaced values. */
  replacements: z.array(z.object({
    location: z.string(),
    day: z.string(),
    quarter_hours: z.number().int(),
  })),
  /** One sentence saying all of the above. */
  message: z.string(),
});

/** `POST /v1/imbalance-prices` → 200. */
export const PricesImportSchema = z.object({
  quarter_hours: z.number().int(),
  added: z.number().int(),
  replaced: z.number().int(),
  unchanged: z.number().int(),
  /** Rows with `N.A.`: nothing stored for them. */
  unknown: z.number().int(),
  days: z.array(z.string()),
  message: z.string(),
});
