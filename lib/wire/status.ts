/**
 * Wire shape of `GET /v1/console/status` (docs/architecture.md, "Console API"): orchestrator
 * state, version, key configuration facts and security posture — never a secret. One zod schema
 * for the route, the OpenAPI document and the browser's type.
 * @module
 */
import { z } from "zod";
import { OrchestratorStatusSchema } from "./orchestrator.ts";
import { AttentionItemSchema } from "./attention.ts";

/**
 * A manual action the console may offer, when this service has its route: one pass now
 * (`POST /v1/orchestrate`), a day's step (`POST /v1/delivery-days/{day}/<step>`), importing the
 * TSO's answers (`POST /v1/schedule-responses/import`).
 */
export const ManualAction = z.enum([
  "orchestrate",
  "forecast",
  "aggregate",
  "publish",
  "submit",
  "import_answers",
]);
/** One of {@link ManualAction}. */
export type ManualAction = z.infer<typeof ManualAction>;

/** Response body of the status endpoint. */
export const StatusBodySchema = z.object({
  version: z.string(),
  orchestrator: OrchestratorStatusSchema,
  security: z.object({
    credential_types: z.array(z.enum(["api_key", "bearer"])),
    /** Distinct caller names per scope. */
    api_key_callers: z.object({ external: z.number().int(), process: z.number().int() }),
    /** Configured keys per scope (a caller in rotation has two). */
    api_keys: z.object({ external: z.number().int(), process: z.number().int() }),
    oidc: z.object({
      issuer: z.string(),
      audience: z.string(),
      jwks_url: z.string(),
      scope_external: z.string(),
      scope_process: z.string(),
    }).nullable(),
    unauthenticated_mode: z.boolean(),
    fail_closed: z.boolean(),
    rate_limit: z.object({ per_minute: z.number().int(), burst: z.number().int() }),
    max_request_bytes: z.number().int(),
    /** `TRUSTED_PROXIES` as CIDR ranges; empty: the client is always the socket peer. */
    trusted_proxies: z.array(z.string()),
  }),
  storage: z.object({
    kv: z.enum(["local_file", "kv_connect", "memory", "deploy_managed"]),
    /** Where published files go when no sFTP host is configured. */
    publish_target: z.enum(["sftp", "outbox"]),
    outbox_dir: z.string().nullable(),
  }),
  /** The manual actions this service offers (the console's buttons; no OpenAPI read needed). */
  manual_actions: z.array(ManualAction),
  /** Retention and the store's size facts (docs/retention.md, "Status"). */
  retention: z.object({
    /** `RETENTION_DAYS`; 0 = everything is kept. */
    retention_days: z.number().int(),
    archive_target: z.enum(["local", "sftp"]),
    archive_dir: z.string(),
    /** Delivery-day states in the store (`null` until the first count). */
    days_kept: z.number().int().nullable(),
    oldest_day: z.string().nullable(),
    events_kept: z.number().int().nullable(),
    /** ISO-8601 UTC instant of the count. */
    counted_at: z.string().nullable(),
    last_pruning: z.object({
      at: z.string(),
      days_pruned: z.number().int(),
      last_day: z.string().nullable(),
      events_archived: z.number().int(),
    }).nullable(),
  }),
  /** What needs the operator, worst first (docs/console_attention.md). */
  attention: z.array(AttentionItemSchema),
});
/** The status body. */
export type StatusBody = z.infer<typeof StatusBodySchema>;
