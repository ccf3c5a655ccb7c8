/**
 * Wire shapes of the post-delivery corrections (docs/post-delivery.md):
 *
 * - `GET /v1/delivery-days/{day}/post-delivery` ({@link PostDeliverySchema}): per control area the
 *   TSO's deadline with the rule that set it, whether a correction is possible now, a proposal
 *   (the schedule set to the actual where it is known, the imbalance that would move to the
 *   counterparty and its value at the known reBAP) and the corrections already sent;
 * - `POST /v1/delivery-days/{day}/schedules/{control_area}/post-delivery`: the body
 *   ({@link CorrectionBodySchema}) and the answer ({@link CorrectionSentSchema}).
 *
 * Units: MW (consumption +, generation −, as the schedule's net quantities), MWh, EUR/MWh, EUR.
 * Per-quarter-hour arrays follow the day's quarter-hours (92, 96 or 100; UTC starts as in the
 * settlement). `null` where an input is missing — never a guessed zero.
 * @module
 */
import { z } from "zod";

const nums = z.array(z.number().nullable());

/** What a correction would do: the schedule set to the actual where the actual is known. */
export const CorrectionProposalSchema = z.object({
  /** The version the TSO has, which the proposal changes. */
  standing_version: z.number().int(),
  /** The proposed schedule, MW (3 decimals): the actual where known, else the standing value. */
  schedule_mw: z.array(z.number()),
  /** Quarter-hours with a known actual. */
  known_quarter_hours: z.number().int(),
  /** Quarter-hours whose schedule would change (by 0.001 MW or more). */
  changed_quarter_hours: z.number().int(),
  /**
   * (proposed − standing) × 0.25 h, MWh: the imbalance that moves to the counterparty (> 0 the
   * group was short: the counterparty delivers it); `null` where the actual is unknown.
   */
  moved_mwh: nums,
  /** Σ positive `moved_mwh` (short imbalance taken over), MWh. */
  moved_short_mwh: z.number(),
  /** Σ |negative `moved_mwh`| (long imbalance taken over), MWh. */
  moved_long_mwh: z.number(),
  /**
   * `moved_mwh` × the reBAP of its direction, EUR: the imbalance cost the balancing group would
   * no longer bear (> 0 it would have paid, < 0 it would have been paid); `null` without a price.
   */
  value_eur: nums,
  /** Σ known `value_eur`, EUR; `null` when no changed quarter-hour has a price. */
  value_eur_total: z.number().nullable(),
  /** Changed quarter-hours without a reBAP price (not in `value_eur_total`). */
  unpriced_quarter_hours: z.number().int(),
});
/** A correction proposal. */
export type CorrectionProposal = z.infer<typeof CorrectionProposalSchema>;

/** A correction version that left, as the version history has it. */
export const CorrectionRecordSchema = z.object({
  version: z.number().int(),
  /** ISO-8601 UTC instant it was handed over. */
  sent_at: z.string(),
  file: z.string(),
  tso_status: z.enum(["sent", "acknowledged", "rejected", "confirmed", "anomaly"]),
  reason_text: z.string().nullable(),
});

/** The post-delivery state of one control area. */
export const AreaPostDeliverySchema = z.object({
  control_area: z.string(),
  /** The TSO's EIC (receiver of the schedules). */
  tso: z.string(),
  /** TSO short name, e.g. `TenneT TSO` (the EIC when unknown). */
  tso_name: z.string(),
  /** `published`: the TSO's own calendar; `statutory`: the fallback until configured. */
  calendar: z.enum(["published", "statutory"]),
  /** ISO-8601 UTC instant the correction window closes. */
  deadline: z.string(),
  /** The same in Berlin local time, in words: `Mon 30 Nov 2026 16:00`. */
  deadline_local: z.string(),
  /** The rule that set the deadline, in words (StromNZV § 5 (3) and the TSO's calendar). */
  rule: z.string(),
  /**
   * `before_delivery`: the day has not ended (intraday versions until then); `open`: a correction
   * is possible now; `closed`: the deadline has passed.
   */
  state: z.enum(["before_delivery", "open", "closed"]),
  /** The version the TSO has (`null`: none sent, or all rejected). */
  standing_version: z.number().int().nullable(),
  /** `null` without a version the TSO has. */
  proposal: CorrectionProposalSchema.nullable(),
  /** Corrections sent for this day and area, oldest first. */
  corrections: z.array(CorrectionRecordSchema),
});
/** One area's post-delivery state. */
export type AreaPostDelivery = z.infer<typeof AreaPostDeliverySchema>;

/** `GET /v1/delivery-days/{day}/post-delivery`. */
export const PostDeliverySchema = z.object({
  delivery_day: z.string(),
  /** ISO-8601 UTC starts of the day's quarter-hours. */
  quarter_hours: z.array(z.string()),
  /** ISO-8601 UTC end of delivery (the next day's 00:00 Berlin). */
  delivery_end: z.string(),
  /** ISO-8601 UTC instant of `state` (the service's clock). */
  computed_at: z.string(),
  areas: z.array(AreaPostDeliverySchema),
});
/** The post-delivery view of one day. */
export type PostDelivery = z.infer<typeof PostDeliverySchema>;

/**
 * The body of a correction: the net schedule per quarter-hour in MW (consumption +, generation −,
 * like the open position and the version history's quantities; `null` keeps the value of the
 * version the TSO has), or `{"from": "actuals"}`: the proposal of
 * {@link CorrectionProposalSchema}.
 */
export const CorrectionBodySchema = z.union([
  z.strictObject({
    unit: z.literal("MW", { error: 'unit must be "MW" (net schedule per quarter-hour)' }),
    quantities: z.array(
      z.number({ error: "each quantity must be a finite number of MW, or null" })
        .min(-1_000_000, "at most 1,000,000 MW either way")
        .max(1_000_000, "at most 1,000,000 MW either way").nullable(),
    ).meta({
      description:
        "net MW per quarter-hour of the delivery day (92, 96 or 100), consumption +, generation −; null keeps the value of the version the TSO has",
    }),
  }),
  z.strictObject({
    from: z.literal("actuals", { error: 'from must be "actuals"' }),
  }),
]);

/**
 * The branch of {@link CorrectionBodySchema} a body means — `{from}` or `{unit, quantities}` —
 * so that a refusal names the field and the quarter-hour, not "no branch matched".
 */
export function correctionBodyBranch(body: unknown) {
  const from = typeof body === "object" && body !== null && "from" in body;
  return CorrectionBodySchema.options[from ? 1 : 0];
}
/** The body of a correction. */
export type CorrectionBody = z.infer<typeof CorrectionBodySchema>;

/** The answer to a correction that left. */
export const CorrectionSentSchema = z.object({
  delivery_day: z.string(),
  control_area: z.string(),
  /** Message version of the correction. */
  version: z.number().int(),
  /** The version it replaces (the one the TSO had). */
  replaces_version: z.number().int(),
  phase: z.literal("post_delivery"),
  channel: z.enum(["files", "platform"]),
  format: z.enum(["ess", "cim"]),
  /** BDEW file name. */
  file: z.string(),
  /** Files: where it is now; platform: the submission id (`null` when none was named). */
  location: z.string().nullable(),
  sent_at: z.string(),
  /** `actuals` or `quantities`. */
  from: z.enum(["actuals", "quantities"]),
  changed_quarter_hours: z.number().int(),
  moved_short_mwh: z.number(),
  moved_long_mwh: z.number(),
  deadline: z.string(),
  deadline_local: z.string(),
  tso_name: z.string(),
});
/** The answer to a correction. */
export type CorrectionSent = z.infer<typeof CorrectionSentSchema>;
