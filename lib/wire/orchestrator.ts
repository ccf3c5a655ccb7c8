/**
 * Wire shape of the orchestrator state (docs/orchestrator.md): stored in KV, answered
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

/** What a finished pass did: `ok` ran steps and none failed; `partial` ran some, some failed. */
export const PassOutcome = z.enum(["ok", "partial", "failed", "nothing_to_do"]);
/** One of {@link PassOutcome}. */
export type PassOutcome = z.infer<typeof PassOutcome>;

/** The last finished orchestrator pass (scheduled or manual). */
export const LastPassSchema = z.object({
  /** ISO-8601 UTC. */
  started_at: z.string(),
  /** ISO-8601 UTC. */
  finished_at: z.string(),
  /** `orchestrator` for a scheduled pass, else the caller who ran it. */
  by: z.string(),
  outcome: PassOutcome,
  steps_run: z.number().int(),
  steps_failed: z.number().int(),
  /**
   * Answer files the pass's inbox import moved to `rejected/` (absent: none; docs/console.md,
   * "A file thrown away").
   */
  files_rejected: z.number().int().optional(),
});
/** The last finished orchestrator pass. */
export type LastPass = z.infer<typeof LastPassSchema>;

/** Stored pass health: the last pass and how many passes in a row failed. */
export const PassHealthSchema = z.object({
  last_pass: LastPassSchema,
  /** Passes in a row whose outcome was `failed` (0 after any other outcome). */
  failed_in_a_row: z.number().int(),
  /** ISO-8601 UTC end of the last pass whose outcome was `ok` or `nothing_to_do` (metrics). */
  last_ok_at: z.string().optional(),
});
/** Stored pass health. */
export type PassHealth = z.infer<typeof PassHealthSchema>;

/** The orchestrator part of the status body: its state and its passes' health. */
export const OrchestratorStatusSchema = OrchestratorStateSchema.extend({
  last_pass: LastPassSchema.nullable(),
  failed_passes_in_a_row: z.number().int(),
  /** When the next scheduled pass is due (ISO-8601 UTC); `null` while stopped. */
  next_pass_at: z.string().nullable(),
});
/** The orchestrator part of the status body. */
export type OrchestratorStatus = z.infer<typeof OrchestratorStatusSchema>;

/** A step the orchestrator and the step routes run. */
export const RunnableStepName = z.enum(["forecast", "aggregate", "publish", "submit"]);

/** What one pass did (`POST /v1/orchestrate` → 200): per day, and the inbox files it rejected. */
export const PassReportSchema = z.object({
  /** ISO-8601 UTC. */
  started_at: z.string(),
  days: z.array(z.object({
    delivery_day: z.string(),
    /** The steps run, in order. */
    ran: z.array(RunnableStepName),
    /** The step that failed, and why in words (the day's later steps were not run). */
    failed: z.object({ step: RunnableStepName, error: z.string() }).optional(),
  })),
  /** Answer files the import before the pass moved to `rejected/`, with why (none: absent). */
  rejected_files: z.array(z.object({ file: z.string(), reason: z.string() })).optional(),
}).meta({ id: "PassReport" });
/** What one pass did. */
export type PassReport = z.infer<typeof PassReportSchema>;
