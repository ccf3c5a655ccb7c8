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
  /** Quarter-hour values stored as substitute values (MSCONS `QTY+67`). */
  substitutes: z.number().int(),
  /** Quarter-hour values stored as provisional values (`QTY+Z18`): the day stays provisional. */
  provisional: z.number().int(),
  /** Quarter-hours the sender reported missing (`QTY+Z30`) where no value was known. */
  missing: z.number().int(),
  /** The first 20 locations and days with replaced values. */
  replacements: z.array(z.object({
    location: z.string(),
    day: z.string(),
    quarter_hours: z.number().int(),
  })),
  /**
   * The first 20 records left as they were because what arrived is older (a monthly settlement
   * series of an older version, or a daily sum after a monthly one).
   */
  older_versions: z.array(z.object({
    location: z.string(),
    day: z.string(),
    /** The version that arrived (ISO-8601 UTC); `null` for a daily sum. */
    version: z.string().nullable(),
    /** The stored version. */
    stored: z.string(),
  })),
  /** One sentence saying all of the above. */
  message: z.string(),
});

/** `POST /v1/imbalance-prices` → 200. */
export const PricesImportSchema = z.object({
  /** The file's layout: the reBAP table download, or the data service's reBAP, estimate, ID AEP. */
  layout: z.enum(["rebap", "rebap_datenservice", "aep_estimate", "id_aep"]),
  /** What its prices are. */
  price_kind: z.enum(["rebap", "aep_estimate", "id_aep"]),
  quarter_hours: z.number().int(),
  added: z.number().int(),
  replaced: z.number().int(),
  unchanged: z.number().int(),
  /** Rows with `N.A.`/`N.E.`: nothing stored for them. */
  unknown: z.number().int(),
  /** reBAP: quarter-hours where it replaced the AEP estimate. */
  replaced_estimates: z.number().int(),
  /** AEP estimate: quarter-hours not taken because their reBAP is known. */
  kept_rebap: z.number().int(),
  days: z.array(z.string()),
  /** Days where the reBAP replaced an estimate, with how many quarter-hours. */
  repriced: z.array(z.object({ day: z.string(), quarter_hours: z.number().int() })),
  message: z.string(),
});

/** `POST /v1/intraday-trades` → 200. */
export const TradesImportSchema = z.object({
  /** Trades read. */
  trades: z.number().int(),
  /** `YYYY-MM-DD <control area EIC>` of each day and area whose trades were replaced. */
  days: z.array(z.string()),
  message: z.string(),
});
