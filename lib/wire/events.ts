/**
 * Wire shape of an event record (docs/architecture.md, "Event log and live stream"): stored in
 * KV, served by the history and the live stream, rendered by the console. One zod schema; the
 * server's and the browser's types are inferred from it.
 * @module
 */
import { z } from "zod";

/** Event kinds: the security events first, then the pipeline's and the console's. */
export const EVENT_KINDS = [
  "api_call",
  "access_denied",
  "auth_disabled",
  "forecast_received",
  "forecasts_generated",
  "positions_aggregated",
  "csv_published",
  "schedules_submitted",
  "orchestration_error",
  "config_changed",
  "orchestrator_started",
  "orchestrator_stopped",
  "schedule_acknowledged",
  "schedule_confirmed",
  "schedule_rejected",
  "anomaly_reported",
  "schedule_answer_rejected",
  "status_requested",
  "rejected_answer_acknowledged",
  "orchestration_recovered",
  "day_archived",
  // After delivery (docs/settlement.md).
  "actuals_received",
  "imbalance_prices_received",
  "intraday_prices_received",
  "intraday_trades_received",
  "settlement_repriced",
  "clearing_marked",
  "settlement_input_rejected",
  // Post-delivery corrections (docs/post-delivery.md).
  "post_delivery_correction_sent",
  // Weather (docs/weather.md).
  "weather_received",
  "weather_input_rejected",
] as const;
/** One of {@link EVENT_KINDS}. */
export type EventKind = typeof EVENT_KINDS[number];

/** Severity of an event. */
export const EventLevel = z.enum(["info", "warning", "error"]);
/** One of {@link EventLevel}. */
export type EventLevel = z.infer<typeof EventLevel>;

/** One stored event record. */
export const EventRecordSchema = z.object({
  /** Strictly increasing integer, 1-based. */
  id: z.number().int(),
  /** Instant of the append, ISO-8601 UTC. */
  ts: z.string(),
  kind: z.enum(EVENT_KINDS),
  level: EventLevel,
  /** One sentence for the operator; may quote paths and foreign error bodies (render as text). */
  message: z.string(),
  caller: z.string().optional(),
  credential_type: z.enum(["api_key", "bearer", "none"]).optional(),
  path: z.string().optional(),
  status: z.number().int().optional(),
  /**
   * Client address of an `api_call` or `access_denied`: the socket peer, or behind a trusted
   * proxy the address it names (docs/access-control.md, "Client address").
   */
  client: z.string().optional(),
  /** Local delivery day, `YYYY-MM-DD` (Europe/Berlin). */
  delivery_day: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
/** A stored event record. */
export type EventRecord = z.infer<typeof EventRecordSchema>;

/** What a caller hands to the log's `append`; id and ts are assigned by the log. */
export type NewEvent = Omit<EventRecord, "id" | "ts" | "level"> & { level?: EventLevel };

/** Body of the history endpoint. */
export const EventsPageSchema = z.object({
  events: z.array(EventRecordSchema),
  /** Id to pass as `after_id` for the next page. */
  next_after_id: z.number().int(),
});
/** A page of history. */
export type EventsPage = z.infer<typeof EventsPageSchema>;
