/**
 * Submit over the `files` channel (docs/fahrplan.md): the
 * latest aggregate of a day as one schedule document per active control area — ESS or CIM by
 * `schedule_format` — written by the BDEW file-name convention to the publish target of the CSV
 * (sFTP with a temporary name and rename, or the local outbox) for the TSO's communication
 * gateway to pick up. `submitted` then means "handed over"; the TSO's answers come later.
 *
 * Every document is built and checked before the first one is written, so a configuration that
 * would make one invalid writes none. Each document's message version is taken from KV first
 * (`./../fahrplan/versions.ts`): a version is never reused, also when a write fails.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { PublishFailed } from "../domain/errors.ts";
import { scheduleFileName } from "../fahrplan/document.ts";
import { renderModule } from "../fahrplan/xml_modules.ts";
import type { TextRedactor } from "../store/redactor.ts";
import type { Aggregate } from "./aggregate.ts";
import { recordStep } from "./day_state.ts";
import { deliverFile } from "./publish.ts";
import { markDocumentSent, prepareDocuments } from "./schedule_documents.ts";
import type { FilesSubmitResult, HandedOver } from "../wire/steps.ts";

export type { FilesSubmitResult, HandedOver } from "../wire/steps.ts";

/**
 * Writes the day's documents and records the `submitted` step (detail: channel, format,
 * documents). Gate closure, parties and coverage were checked by the caller.
 * @throws {DomainError} `ERR_SCHEDULE_INVALID` when a document would be invalid (nothing
 *   written); `ERR_PUBLISH_FAILED` when the target did not take a file
 */
export async function submitFiles(
  kv: Deno.Kv,
  agg: Aggregate,
  cfg: EffectiveConfig,
  opts: { by: string; clock: Clock; redactor?: TextRedactor },
): Promise<FilesSubmitResult> {
  const day = agg.delivery_day;
  const now = opts.clock.now();
  const { format, docs, unchanged } = await prepareDocuments(kv, agg, cfg, now);
  const { renderSchedule } = await renderModule();
  const documents: HandedOver[] = [];
  for (const p of docs) {
    const { area, doc } = p;
    const file = scheduleFileName(doc);
    const xml = renderSchedule(doc, format);
    let location: string;
    try {
      location = await deliverFile(cfg, file, xml, opts.redactor);
    } catch (err) {
      throw new PublishFailed(`Handing over ${file} failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    documents.push({
      control_area: area,
      receiver: doc.receiver,
      version: doc.messageVersion,
      file,
      location,
    });
    await markDocumentSent(kv, p, file, now);
  }
  await recordStep(kv, day, "submitted", {
    version: agg.version,
    at: new Date(now).toISOString(),
    by: opts.by,
    detail: { channel: "files", format, documents, unchanged },
  });
  return {
    delivery_day: day,
    version: agg.version,
    channel: "files",
    format,
    documents,
    unchanged,
  };
}
