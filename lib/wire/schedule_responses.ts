/**
 * Wire shapes of the TSO answers' import and of a status request (docs/fahrplan.md; docs/console.md,
 * "A file thrown away"): `POST /v1/schedule-responses/import`,
 * `POST /v1/schedule-responses/rejected/{file}/acknowledge` and
 * `POST /v1/delivery-days/{day}/schedules/{control_area}/status-request`. The records the
 * fahrplan modules store and return are these types.
 * @module
 */
import { z } from "zod";

/** What the TSO made of a schedule. */
export const TsoStateSchema = z.enum(["sent", "acknowledged", "rejected", "confirmed", "anomaly"]);

/** What happened to one inbox file. */
export const ImportResultSchema = z.object({
  /** The file's name (`failed`: the inbox, a local directory or `sftp:<dir>`). */
  file: z.string(),
  /** `failed`: an inbox could not be read. */
  outcome: z.enum(["imported", "rejected", "skipped", "failed"]),
  delivery_day: z.string().optional(),
  control_area: z.string().optional(),
  tso_status: TsoStateSchema.optional(),
  /** Why a file was rejected or skipped, in words. */
  reason: z.string().optional(),
}).meta({ id: "ImportResult" });
/** What happened to one inbox file. */
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** An answer file moved to `rejected/` that waits for the operator. */
export const RejectedAnswerSchema = z.object({
  /** The file's name in the inbox (now under `rejected/`). */
  file: z.string(),
  /** Which inbox, in words: the local directory or `sftp:<dir>`. */
  where: z.string(),
  /** Why it was not imported, in words. */
  reason: z.string(),
  /** When it was moved, ISO-8601 UTC. */
  at: z.string(),
  /** The delivery day it is about, when known (from the answer or a `YYYYMMDD_` file name). */
  delivery_day: z.string().nullable(),
  /** The control area's EIC it is about, when known. */
  control_area: z.string().nullable(),
}).meta({ id: "RejectedAnswer" });
/** A rejected answer file. */
export type RejectedAnswer = z.infer<typeof RejectedAnswerSchema>;

/** `POST /v1/schedule-responses/import` → 200. */
export const ScheduleImportSchema = z.object({
  /** One entry per file found now (none when the inbox does not exist). */
  files: z.array(ImportResultSchema),
  /** Every rejected file still waiting for the operator, oldest first. */
  rejected_waiting: z.array(RejectedAnswerSchema),
}).meta({ id: "ScheduleImport" });

/** The last status request (SRQ) of a day and control area; the manual request's answer. */
export const StatusRequestSchema = z.object({
  delivery_day: z.string(),
  control_area: z.string(),
  /** Message version of the schedule it asks about. */
  version: z.number().int(),
  /** `ack`: no ACK in time; `cnf`: no CNF in time after the ACK; `manual`: the operator asked. */
  state: z.enum(["ack", "cnf", "manual"]),
  /** ISO-8601 UTC instant it went out. */
  at: z.string(),
  /** BDEW file name. */
  file: z.string(),
  /** Where it is now (remote path for sFTP, or the outbox path). */
  location: z.string(),
  format: z.enum(["ess", "cim"]),
  by: z.string(),
}).meta({ id: "StatusRequest" });
/** A status request record. */
export type StatusRequestRecord = z.infer<typeof StatusRequestSchema>;
