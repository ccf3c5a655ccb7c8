/**
 * The schedule documents of one aggregate (docs/fahrplan.md): built with the configured parties,
 * checked before anything leaves, each with its message version from KV
 * (`../fahrplan/versions.ts`), and recorded as `sent` once handed over. Shared by both channels:
 * files (`./submit_files.ts`) and the market platform (`./submit_documents.ts`).
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { tsoOverrides } from "../config/fields.ts";
import { assertValidSchedule, buildSchedule, type ScheduleDocument } from "../fahrplan/document.ts";
import { markSent } from "../fahrplan/tso_status.ts";
import { scheduleVersion } from "../fahrplan/versions.ts";
import type { Aggregate } from "./aggregate.ts";

/** The checked documents of one aggregate, ready to send. */
export interface PreparedDocuments {
  format: "ess" | "cim";
  docs: { area: string; doc: ScheduleDocument }[];
}

/**
 * Builds and checks every control area's document of `agg`, taking each message version from KV
 * (a version is never reused, also when sending fails).
 * @param nowMs creation time of the documents (epoch ms)
 * @throws {import("../domain/errors.ts").ScheduleInvalid} when one would be invalid (nothing sent)
 */
export async function prepareDocuments(
  kv: Deno.Kv,
  agg: Aggregate,
  cfg: EffectiveConfig,
  nowMs: number,
): Promise<PreparedDocuments> {
  const docs = [];
  for (const [area, mw] of Object.entries(agg.areas)) {
    const v = await scheduleVersion(kv, agg.delivery_day, area, agg.version, nowMs);
    docs.push({ area, doc: scheduleFor(cfg, agg, area, mw, v.message_version, nowMs) });
  }
  return { format: cfg.schedule_format === "cim" ? "cim" : "ess", docs };
}

/**
 * The checked schedule document of `area` in aggregate `agg` with the configured parties
 * (`sender_eic`, `balancing_group`, `counterparty_eic`, `tso_party_eics`).
 * @param mw the area's open position per quarter-hour (MW)
 * @param nowMs creation time (epoch ms, UTC)
 * @throws {import("../domain/errors.ts").ScheduleInvalid} listing every problem
 */
export function scheduleFor(
  cfg: EffectiveConfig,
  agg: Aggregate,
  area: string,
  mw: number[],
  messageVersion: number,
  nowMs: number,
): ScheduleDocument {
  const doc = buildSchedule({
    day: agg.delivery_day,
    aggregateVersion: agg.version,
    controlArea: area,
    mw,
    senderEic: cfg.sender_eic ?? "",
    balancingGroup: cfg.balancing_group ?? "",
    counterpartyEic: cfg.counterparty_eic ?? "",
    messageVersion,
    createdAtMs: nowMs,
    tsoOverrides: tsoOverrides(cfg.tso_party_eics),
  });
  assertValidSchedule(doc);
  return doc;
}

/**
 * Records that `doc` (as `file`) left for its TSO at `atMs` (epoch ms): its day's and area's
 * status becomes `sent`; with `platformId` (the market platform's submission id) it is polled.
 */
export async function markDocumentSent(
  kv: Deno.Kv,
  doc: ScheduleDocument,
  file: string,
  atMs: number,
  platformId?: string | null,
): Promise<void> {
  await markSent(kv, doc.day, {
    control_area: doc.controlArea,
    receiver: doc.receiver,
    version: doc.messageVersion,
    file,
    at: new Date(atMs).toISOString(),
    ...(platformId ? { platform_id: platformId } : {}),
  });
}
