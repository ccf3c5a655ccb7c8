/**
 * Submit over the `platform` channel with ESS or CIM documents (docs/pipeline.md, "Schedules to
 * the TSO (Fahrplan)"): the latest aggregate of a day as one schedule document per active control
 * area, each `POST {market_platform_url}/schedules` with `content-type: application/xml` and its
 * own idempotency key `<day>-v<aggregate version>-<control area EIC>`. Every document is built and
 * checked before the first one is sent; each sent document is `sent` in its day's and area's
 * status and pending with the platform's submission id, which the orchestrator polls
 * (`../fahrplan/platform_poll.ts`) until the TSO's answer is final.
 *
 * The claim, the gate-closure stop and the retries are the JSON submission's (`./submit.ts`).
 * @module
 */
import {
  MarketPlatformError,
  type PlatformTarget,
  type Receipt,
  sendSchedules,
} from "../adapters/market_platform.ts";
import { systemClock } from "../clock.ts";
import { scheduleFileName } from "../fahrplan/document.ts";
import { renderModule } from "../fahrplan/xml_modules.ts";
import { markDocumentSent, type PreparedDocuments } from "./schedule_documents.ts";
import type { PlatformDocument } from "../wire/steps.ts";

/** A document the platform took (`lib/wire/steps.ts`). */
export type { PlatformDocument };

/**
 * Sends the prepared documents one after the other and marks each `sent`. The target's budget
 * (`timeoutSeconds`) and stop (`stopAfterMs`: the instant the first open quarter-hour enters the
 * lead time, `leaveBeforeMs` of the prepared documents) hold for all documents together: no
 * document is sent, and no retry made, past either.
 * @param key the aggregate version's idempotency key (`<day>-v<version>`); each document's key
 *   adds its control area
 * @returns one receipt for the claim (status of the last answer, attempts summed, the documents
 *   as its body) and the documents
 * @throws {import("../adapters/market_platform.ts").MarketPlatformError} at the first document the
 *   platform refused or that could not be sent; the ones before it stay sent (a resend carries
 *   the same keys, which the platform recognises)
 */
export async function sendDocuments(
  kv: Deno.Kv,
  prepared: PreparedDocuments,
  target: PlatformTarget,
  key: string,
  nowMs: number,
): Promise<{ receipt: Receipt; documents: PlatformDocument[] }> {
  const { renderSchedule } = await renderModule();
  const documents: PlatformDocument[] = [];
  let attempts = 0;
  let status = 0;
  // One budget and one gate-closure stop for all documents together, not per document.
  const clock = target.clock ?? systemClock;
  const budgetEnd = nowMs + target.timeoutSeconds * 1000;
  const stopAt = target.stopAfterMs === undefined ? Infinity : nowMs + target.stopAfterMs;
  for (const p of prepared.docs) {
    const { area, doc } = p;
    const docKey = `${key}-${area}`;
    const now = clock.now();
    if (now >= stopAt || now >= budgetEnd) {
      const why = now >= stopAt
        ? (target.stopReason ?? "the time limit")
        : `the budget of ${target.timeoutSeconds} s`;
      throw new MarketPlatformError(
        `the document for ${area} was not sent: the submission reached ${why} after ${documents.length} of ${prepared.docs.length} documents`,
        null,
        "",
        0,
        now < stopAt,
      );
    }
    const r = await sendSchedules(
      {
        ...target,
        timeoutSeconds: (budgetEnd - now) / 1000,
        stopAfterMs: stopAt === Infinity ? undefined : stopAt - now,
      },
      { xml: renderSchedule(doc, prepared.format) },
      docKey,
    );
    attempts += r.attempts;
    status = r.status;
    const id = (r.body as { submission_id?: unknown } | null)?.submission_id;
    const file = scheduleFileName(doc);
    const sent: PlatformDocument = {
      control_area: area,
      receiver: doc.receiver,
      version: doc.messageVersion,
      file,
      idempotency_key: docKey,
      submission_id: typeof id === "string" && id ? id : null,
      status: r.status,
    };
    documents.push(sent);
    await markDocumentSent(kv, p, file, nowMs, sent.submission_id);
  }
  return {
    receipt: { status, attempts, idempotency_key: key, body: { documents } },
    documents,
  };
}
