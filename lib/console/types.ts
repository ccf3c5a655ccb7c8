/**
 * Shapes of the API bodies the console page reads (docs/architecture.md, "Console API"). Plain types, so
 * the browser bundle carries no schema library; the routes' zod schemas are the source of truth.
 * @module
 */

/** Severity of an event. */
export type Level = "info" | "warning" | "error";

/** One record of the operations log (docs/architecture.md, "Event log and live stream"). */
export interface EventRecord {
  id: number;
  /** ISO-8601 UTC. */
  ts: string;
  kind: string;
  level: Level;
  /** May quote request paths and foreign error bodies: render as text only. */
  message: string;
  caller?: string;
  credential_type?: string;
  path?: string;
  status?: number;
  delivery_day?: string;
  data?: Record<string, unknown>;
}

/** `GET /v1/console/events`. */
export interface EventsPage {
  events: EventRecord[];
  next_after_id: number;
}

/** Orchestrator state object (docs/pipeline.md, "Orchestrator"). */
export interface OrchestratorState {
  state: "running" | "stopped";
  changed_at: string | null;
  changed_by: string | null;
}

/** `GET /v1/console/status` (docs/architecture.md, "Console API"). */
export interface StatusBody {
  version: string;
  orchestrator: OrchestratorState;
  security: {
    credential_types: string[];
    api_key_callers: { external: number; process: number };
    oidc: { issuer: string; audience: string } | null;
    unauthenticated_mode: boolean;
    fail_closed: boolean;
    rate_limit: { per_minute: number; burst: number };
    max_request_bytes: number;
  };
  storage: { kv: string };
}

/** One field of `GET /v1/console/config` (docs/architecture.md, "Runtime configuration"). */
export interface ConfigFieldView {
  value: unknown;
  source: "env" | "runtime" | "default";
  secret: boolean;
  env: string;
  description: string;
}

/** `GET/PUT/DELETE /v1/console/config`. */
export interface ConfigBody {
  fields: Record<string, ConfigFieldView>;
  changed?: string[];
}

/** How the editor presents a field; derived on the server from the field's schema. */
export interface FieldMeta {
  name: string;
  kind: "text" | "number" | "list" | "enum" | "secret";
  /** Choices of an `enum` field. */
  options?: string[];
  /** A secret that spans lines (a private key): edited in a text area. */
  multiline?: boolean;
  env: string;
  description: string;
}

/** One 422 item (docs/architecture.md, "Errors"). */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * A pipeline step of a day and one entry of `GET /v1/console/delivery-days` (docs/pipeline.md, "Day state and staleness"): the
 * server's own types, imported as types only, so nothing of the server enters the bundle.
 */
export type { DayOverview, StepView as Step } from "../pipeline/day_state.ts";

/** `GET /v1/delivery-days/{day}/open-position`. */
export interface OpenPosition {
  delivery_day: string;
  version: number;
  unit: "MW";
  quarter_hours: { start: string; local: string }[];
  areas: Record<string, number[]>;
}
