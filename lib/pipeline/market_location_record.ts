/**
 * The stored record of one market location (docs/pipeline.md, "Market locations"), under
 * `["market_locations", <malo_id>]`. Its own module so that the master-data change
 * (`./master_data.ts`) and the market-location store (`./market_locations.ts`) both use it
 * without importing each other.
 * @module
 */
import type { z } from "zod";
import type { MarketLocationInput } from "../wire/market_locations.ts";

/** A stored market location. */
export interface MarketLocation extends z.infer<typeof MarketLocationInput> {
  /** 11-digit MaLo-ID. */
  malo_id: string;
  /** ISO-8601 UTC instant of the last change. */
  updated_at: string;
}
