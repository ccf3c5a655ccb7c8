/**
 * Wire shape of `GET /v1/console/status` (docs/architecture.md, "Console API"): orchestrator
 * state, version, key configuration facts and security posture — never a secret. One zod schema
 * for the route, the OpenAPI document and the browser's type.
 * @module
 */
import { z } from "zod";
import { OrchestratorStatusSchema } from "./orchestrator.ts";
import { AttentionItemSchema } from "./attention.ts";

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
  /** What needs the operator, worst first (docs/console.md, "Attention"). */
  attention: z.array(AttentionItemSchema),
});
/** The status body. */
export type StatusBody = z.infer<typeof StatusBodySchema>;
