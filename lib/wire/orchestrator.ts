/**
 * Wire shape of the orchestrator state (docs/pipeline.md, "Orchestrator"): stored in KV, answered
 * by start/stop and part of the status body. One zod schema; the server's and the browser's types
 * are inferred from it (the browser imports the type only, so no zod enters the bundle).
 * @module
 */
import { z } from "zod";

/** `running`: scheduled passes happen; `stopped`: they do not. */
export const OrchestratorStateName = z.enum(["running", "stopped"]);
/** One of {@link OrchestratorStateName}. */
export type OrchestratorStateName = z.infer<typeof OrchestratorStateName>;

/** The persisted state object; also the body of start/stop responses. */
export const OrchestratorStateSchema = z.object({
  state: OrchestratorStateName,
  /** ISO-8601 UTC instant of the last change; `null` when never changed. */
  changed_at: z.string().nullable(),
  /** Caller who changed it last; `null` when never changed. */
  changed_by: z.string().nullable(),
});
/** The orchestrator state object. */
export type OrchestratorState = z.infer<typeof OrchestratorStateSchema>;
