/**
 * Shapes of the API bodies the console page reads (docs/architecture.md, "Console API"): the
 * types inferred from the server's one zod schema per wire shape (`lib/wire/`), imported as types
 * only, so the browser bundle carries no schema library and cannot drift from the server.
 * @module
 */

export type { EventLevel as Level, EventRecord, EventsPage } from "../wire/events.ts";
export type { OrchestratorState } from "../wire/orchestrator.ts";
export type { StatusBody } from "../wire/status.ts";
export type { ConfigBody, FieldView as ConfigFieldView } from "../wire/config.ts";
export type { DayOverview, StepFailure, StepView as Step } from "../wire/delivery_days.ts";
export type { OpenPosition } from "../wire/open_position.ts";
export type { InputIssue as ValidationItem } from "../domain/errors.ts";

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
