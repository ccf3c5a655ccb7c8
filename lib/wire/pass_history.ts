/**
 * Wire shape of the pass history (docs/console.md, "Pass history"): every finished orchestrator
 * pass, scheduled or manual, with per day what ran, what failed and what was not tried, and why.
 * Stored in KV and answered by `GET /v1/console/passes` in the same shape. One zod schema; the
 * browser imports the types only.
 * @module
 */
import { z } from "zod";
import { PassOutcome } from "./orchestrator.ts";

/** What a pass did for one delivery day. */
export const PassDaySchema = z.object({
  /** `YYYY-MM-DD`, Europe/Berlin. */
  delivery_day: z.string(),
  /** Steps that ran, in order. */
  ran: z.array(z.string()),
  /** The step that failed, with the reason in words; the day's pass ended there. */
  failed: z.object({ step: z.string(), error: z.string() }).nullable(),
  /** Steps not tried in this pass, each with why. */
  skipped: z.array(z.object({ step: z.string(), reason: z.string() })),
});
/** What a pass did for one delivery day. */
export type PassDay = z.infer<typeof PassDaySchema>;

/** One recorded pass. */
export const PassRecordSchema = z.object({
  /** Sequence number: larger is newer; the paging cursor. */
  id: z.number().int(),
  /** ISO-8601 UTC. */
  started_at: z.string(),
  /** ISO-8601 UTC. */
  finished_at: z.string(),
  /** Seconds from start to finish. */
  duration_s: z.number(),
  /** `orchestrator` for a scheduled pass, else the caller who ran it. */
  by: z.string(),
  /** `scheduled` (a tick of the orchestrator) or `manual` (`POST /v1/orchestrate`). */
  trigger: z.enum(["scheduled", "manual"]),
  outcome: PassOutcome,
  steps_run: z.number().int(),
  steps_failed: z.number().int(),
  /** Days the pass worked on (days with nothing to do are not listed). */
  days: z.array(PassDaySchema),
  /** Why the whole pass failed outside any step (e.g. the store could not be read); else null. */
  error: z.string().nullable(),
  /**
   * Answer files the inbox import before the pass moved to `rejected/`, with why (docs/console.md,
   * "Attention"); absent in records stored before it was kept.
   */
  rejected_files: z.array(z.object({ file: z.string(), reason: z.string() })).optional(),
});
/** One recorded pass. */
export type PassRecord = z.infer<typeof PassRecordSchema>;

/** `GET /v1/console/passes`: newest first. */
export const PassPageSchema = z.object({
  passes: z.array(PassRecordSchema),
  /** Pass `before=` this for the next (older) page; `null` when there is none. */
  next_before: z.number().int().nullable(),
});
/** A page of the pass history. */
export type PassPage = z.infer<typeof PassPageSchema>;
