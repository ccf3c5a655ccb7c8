/**
 * Publish (docs/pipeline.md, "Publish"): the day's latest aggregate as CSV to the sFTP
 * server, or to the local outbox when no sFTP host is configured (`publish_target`).
 * @module
 */
import { writeToOutbox } from "../adapters/outbox.ts";
import { uploadViaSftp } from "../adapters/sftp.ts";
import { sftpTargetOf } from "../adapters/sftp_target.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { NotAggregated, PublishFailed } from "../domain/errors.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { readAggregate } from "./aggregate.ts";
import type { PublishStepResult } from "../wire/steps.ts";
import { recordStep } from "./day_state.ts";
import { openPositionCsv, openPositionFileName } from "./open_position_csv.ts";

/** Where a file went: the publish step's answer (`lib/wire/steps.ts`). */
export type PublishResult = PublishStepResult;

/** Resolves `publish_target` to where the next file goes. */
export function publishTarget(cfg: EffectiveConfig): "sftp" | "outbox" {
  if (cfg.publish_target === "auto") return cfg.sftp_host ? "sftp" : "outbox";
  return cfg.publish_target;
}

/**
 * Publishes the latest aggregate of `day` and records the `published` step.
 * @throws {NotAggregated} when the day has not been aggregated; {@link PublishFailed} with the adapter's
 *   message when the upload fails (nothing is recorded then)
 */
export async function publishDay(
  kv: Deno.Kv,
  day: string,
  cfg: EffectiveConfig,
  opts: { by: string; nowMs: number; redactor?: TextRedactor },
): Promise<PublishResult> {
  const agg = await readAggregate(kv, day);
  if (!agg) {
    throw new NotAggregated(day, "publish");
  }
  const file = openPositionFileName(agg);
  const csv = openPositionCsv(agg);
  const target = publishTarget(cfg);
  let location: string;
  try {
    location = await deliverFile(cfg, file, csv, opts.redactor);
  } catch (err) {
    throw new PublishFailed(`Publishing ${file} failed: ${(err as Error).message}`, { cause: err });
  }
  const result: PublishResult = {
    delivery_day: day,
    version: agg.version,
    target,
    location,
    file,
    rows: agg.quarter_hours.length,
  };
  await recordStep(kv, day, "published", {
    version: agg.version,
    at: new Date(opts.nowMs).toISOString(),
    by: opts.by,
    detail: { target, location, file, rows: result.rows },
  });
  return result;
}

/**
 * Hands one file to the publish target (`publish_target`): the sFTP server (temporary name, then
 * rename) or the local outbox. Used for the open-position CSV and for schedule documents.
 * @returns where the file is now (remote path for sFTP)
 * @throws {Error} when sFTP is the target but not fully configured, or the upload or write fails
 *   (the message names the cause; secrets masked by `redactor`)
 */
export async function deliverFile(
  cfg: EffectiveConfig,
  file: string,
  content: string,
  redactor?: TextRedactor,
): Promise<string> {
  if (publishTarget(cfg) === "sftp") {
    return await uploadViaSftp(
      sftpTargetOf(cfg, cfg.sftp_remote_dir, "publish_target is sftp", redactor),
      file,
      content,
    );
  }
  return await writeToOutbox(cfg.outbox_dir, file, content);
}
