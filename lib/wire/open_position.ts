/**
 * Wire shape of `GET /v1/delivery-days/{day}/open-position` (docs/pipeline.md, "Aggregation"): the
 * latest aggregate, MW per quarter-hour and control area (consumption positive). One zod schema
 * for the route, the OpenAPI document and the browser's type.
 * @module
 */
import { z } from "zod";

/** The open position of one delivery day. */
export const OpenPositionSchema = z.object({
  delivery_day: z.string(),
  version: z.number().int(),
  stale: z.boolean(),
  computed_at: z.string(),
  unit: z.literal("MW"),
  quarter_hours: z.array(z.object({ start: z.string(), local: z.string(), local_iso: z.string() })),
  areas: z.record(z.string(), z.array(z.number())),
});
/** The open position of one delivery day. */
export type OpenPosition = z.infer<typeof OpenPositionSchema>;
