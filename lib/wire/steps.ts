/**
 * Wire shapes of the step results (docs/api.md, "Steps and routes"; docs/pipeline.md): what
 * `POST /v1/delivery-days/{day}/forecast|aggregate|publish|submit` answers. One zod schema per
 * shape; the pipeline's result types are inferred from them, so the code cannot answer a field the
 * OpenAPI document does not declare.
 * @module
 */
import { z } from "zod";

const int = () => z.number().int();

/** The forecast step (`lib/pipeline/generate.ts`). */
export const ForecastStepResultSchema = z.object({
  delivery_day: z.string(),
  /** Profile locations whose generated values changed with this run (all of them, or none). */
  generated: int(),
  /** Generated forecasts stored per location by an earlier version, deleted. */
  removed: int(),
  /** Profile locations whose generated values were already current. */
  unchanged: int(),
  /** Locations skipped because the customer sent a forecast. */
  customer: int(),
  /** Metered locations whose learned forecast counts (docs/forecasting.md, "In the service"). */
  learned: int(),
  /** Metered locations whose customer forecast counts corrected by its errors. */
  customer_corrected: int(),
  /** Locations without a profile and without any forecast for the day. */
  without_profile: int(),
  /**
   * What the refresh of the learned forecasts did before the step read its inputs (`null`: no
   * metered location, nothing to learn; docs/forecasting.md, "In the service").
   */
  learned_refresh: z.object({
    /** False when nothing it reads changed since the last one (nothing done). */
    ran: z.boolean(),
    /** Metered locations. */
    metered: int(),
    /** Locations whose inputs changed: fitted and forecast again. */
    computed: int(),
    /** Locations left as they were. */
    unchanged: int(),
    /** Model records of locations no longer metered, deleted. */
    removed: int(),
    /** Days whose learned forecasts changed (their input version was bumped). */
    changed_days: z.array(z.string()),
  }).nullable(),
  /**
   * The input version the step consumed, as recorded in its `forecast` step: the day's version
   * when the step read its inputs — or the version of its own bump, when nothing else arrived
   * until its commit.
   */
  input_version: int(),
  /**
   * The day's `input_version` after the step's commit: above `input_version` when input arrived
   * while the step read (the step is stale at once; the next pass runs it again).
   */
  day_input_version: int(),
  /** Master-data version the run saw (the orchestrator re-runs generation when it moves). */
  master_version: int(),
}).meta({ id: "ForecastStepResult" });
/** The forecast step's result. */
export type ForecastStepResult = z.infer<typeof ForecastStepResultSchema>;

/** The aggregate step. */
export const AggregateStepResultSchema = z.object({
  delivery_day: z.string(),
  /** Aggregate version made. */
  version: int(),
  counts: z.object({
    /** Market locations summed. */
    market_locations: int(),
    /** Market locations of inactive control areas, ignored. */
    inactive_area: int(),
    /** Market locations of active areas without a forecast for the day. */
    missing_forecast: int(),
    /** Forecasts of market locations that no longer exist, ignored. */
    unknown_location: int(),
  }),
}).meta({ id: "AggregateStepResult" });
/** The aggregate step's result. */
export type AggregateStepResult = z.infer<typeof AggregateStepResultSchema>;

/** The publish step (`lib/pipeline/publish.ts`): where the CSV went. */
export const PublishStepResultSchema = z.object({
  delivery_day: z.string(),
  /** Aggregate version published. */
  version: int(),
  target: z.enum(["sftp", "outbox"]),
  /** Final path (remote path for sFTP). */
  location: z.string(),
  file: z.string(),
  rows: int(),
}).meta({ id: "PublishStepResult" });
/** The publish step's result. */
export type PublishStepResult = z.infer<typeof PublishStepResultSchema>;

/** An area that got no new schedule version: nothing open changed (docs/intraday.md). */
export const UnchangedAreaSchema = z.object({
  control_area: z.string(),
  /** In words, e.g. "no open quarter-hour differs by 0.001 MW or more from version 4". */
  reason: z.string(),
}).meta({ id: "UnchangedArea" });
/** An area without a new version. */
export type UnchangedArea = z.infer<typeof UnchangedAreaSchema>;

/** A schedule document the market platform took (ESS/CIM on the platform channel). */
export const PlatformDocumentSchema = z.object({
  control_area: z.string(),
  /** The TSO's EIC (receiver, role A04). */
  receiver: z.string(),
  /** Message version of the document. */
  version: int(),
  /** BDEW file name of the document. */
  file: z.string(),
  idempotency_key: z.string(),
  /** The platform's submission id (`null` when its receipt named none: then nothing is polled). */
  submission_id: z.string().nullable(),
  /** HTTP status of the platform's receipt (201 new, 200 seen before). */
  status: int(),
}).meta({ id: "PlatformDocument" });
/** A document sent to the platform. */
export type PlatformDocument = z.infer<typeof PlatformDocumentSchema>;

/** Submission to the market platform: the JSON payload, or ESS/CIM documents. */
export const PlatformSubmitResultSchema = z.object({
  delivery_day: z.string(),
  /** Aggregate version submitted. */
  version: int(),
  idempotency_key: z.string(),
  /** False when this version had already been submitted (the stored receipt is returned). */
  sent: z.boolean(),
  /** For documents: the last answer's status, attempts summed, the documents as body. */
  receipt: z.object({
    /** HTTP status of the platform's answer; 0 when nothing was sent. */
    status: int(),
    /** The platform's answer body. */
    body: z.unknown(),
    attempts: int(),
    idempotency_key: z.string(),
  }),
  /** `json`: one payload; `ess`/`cim`: one document per control area (`documents`). */
  format: z.enum(["json", "ess", "cim"]),
  documents: z.array(PlatformDocumentSchema).optional(),
  /** ESS/CIM: areas that got no new version, nothing open changed (docs/intraday.md). */
  unchanged: z.array(UnchangedAreaSchema).optional(),
}).meta({ id: "PlatformSubmitResult" });
/** Result of a submission to the market platform. */
export type PlatformSubmitResult = z.infer<typeof PlatformSubmitResultSchema>;

/** One schedule document handed over on the files channel. */
export const HandedOverSchema = z.object({
  control_area: z.string(),
  /** The TSO's EIC (receiver, role A04). */
  receiver: z.string(),
  /** Message version of the document. */
  version: int(),
  file: z.string(),
  /** Where it is now (remote path for sFTP). */
  location: z.string(),
}).meta({ id: "HandedOverDocument" });
/** A document handed over. */
export type HandedOver = z.infer<typeof HandedOverSchema>;

/** Submission over the files channel (docs/fahrplan.md): one document per control area. */
export const FilesSubmitResultSchema = z.object({
  delivery_day: z.string(),
  /** Aggregate version carried. */
  version: int(),
  channel: z.literal("files"),
  format: z.enum(["ess", "cim"]),
  documents: z.array(HandedOverSchema),
  /** Areas that got no new version: nothing open changed (docs/intraday.md). */
  unchanged: z.array(UnchangedAreaSchema),
}).meta({ id: "FilesSubmitResult" });
/** Result of a submission over the files channel. */
export type FilesSubmitResult = z.infer<typeof FilesSubmitResultSchema>;

/** The submit step: by `schedule_channel`, the platform's or the files channel's result. */
export const SubmitStepResultSchema = z.union([PlatformSubmitResultSchema, FilesSubmitResultSchema])
  .meta({ id: "SubmitStepResult" });
/** The submit step's result. */
export type SubmitStepResult = z.infer<typeof SubmitStepResultSchema>;

/** The result of any step. */
export type StepResult =
  | ForecastStepResult
  | AggregateStepResult
  | PublishStepResult
  | SubmitStepResult;
