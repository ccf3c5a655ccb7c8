/**
 * The schedule documents of one aggregate (docs/fahrplan.md, docs/intraday.md): built with the
 * configured parties, checked before anything leaves, each with its message version from KV
 * (`../fahrplan/versions.ts`), and recorded as `sent` — in the day's and area's status and in its
 * version history (`../fahrplan/history.ts`) — once handed over. Shared by both channels: files
 * (`./submit_files.ts`) and the market platform (`./submit_documents.ts`).
 *
 * When a version goes out (docs/intraday.md, "When a version goes out"): before the TSO deadline
 * every newer aggregate makes a new version of every area; from the deadline on, an area gets a new
 * version only when the aggregate differs from the schedule the TSO has (its last version not
 * rejected) in at least one open quarter-hour by `intraday_min_change_mw` or more. In every version
 * the quarter-hours starting before `sent_at + intraday_lead_minutes` are frozen: they carry the
 * quantities of the schedule the TSO has (0 where none was sent).
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { tsoOverrides } from "../config/fields.ts";
import {
  frozenBefore,
  frozenCount,
  type SchedulePhase,
  schedulePhase,
} from "../domain/deadlines.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { assertValidSchedule, buildSchedule, type ScheduleDocument } from "../fahrplan/document.ts";
import { recordVersionSent, standingVersion, versionHistory } from "../fahrplan/history.ts";
import { markSent } from "../fahrplan/tso_status.ts";
import { scheduleVersion } from "../fahrplan/versions.ts";
import type { Aggregate } from "./aggregate.ts";
import type { UnchangedArea } from "../wire/steps.ts";

/** One checked document, ready to send, with when and how it is sent. */
export interface PreparedDocument {
  area: string;
  doc: ScheduleDocument;
  phase: SchedulePhase;
  /** ISO-8601 UTC start of the first open quarter-hour (the day's end: none open). */
  frozen_before: string;
}

/** An area left out: nothing open changed (`lib/wire/steps.ts`). */
export type { UnchangedArea };

/** The checked documents of one aggregate, ready to send. */
export interface PreparedDocuments {
  format: "ess" | "cim";
  docs: PreparedDocument[];
  /** Areas left out in the intraday phase because nothing open changed. */
  unchanged: UnchangedArea[];
  /**
   * Epoch ms from which the documents may no longer leave: the first open quarter-hour would
   * then start within the lead time, so a frozen quarter-hour would change at the TSO.
   */
  leaveBeforeMs: number;
}

/** Rounds MW to the documents' 3 decimals (1 kW). */
const round3 = (mw: number) => Math.round(mw * 1000) / 1000 + 0;

/**
 * The largest difference (MW, 3 decimals) between `mw` and `reference` over the open quarter-hours
 * (index `frozen` on); a missing reference value counts as 0.
 */
export function openChange(
  mw: readonly number[],
  reference: readonly number[],
  frozen: number,
): number {
  let max = 0;
  for (let i = frozen; i < mw.length; i++) {
    max = Math.max(max, Math.abs(round3(mw[i]) - round3(reference[i] ?? 0)));
  }
  return round3(max);
}

/**
 * Builds and checks the documents of `agg` that are due (see the module), taking each message
 * version from KV (a version is never reused, also when sending fails).
 * @param nowMs creation time of the documents (epoch ms): their phase and frozen quarter-hours
 * @throws {import("../domain/errors.ts").ScheduleInvalid} when one would be invalid, would change
 *   a frozen quarter-hour or would exceed the most versions the format allows (nothing sent)
 */
export async function prepareDocuments(
  kv: Deno.Kv,
  agg: Aggregate,
  cfg: EffectiveConfig,
  nowMs: number,
): Promise<PreparedDocuments> {
  const d = deliveryDay(agg.delivery_day);
  const phase = schedulePhase(d, nowMs, cfg.tso_deadline_local_time);
  const lead = cfg.intraday_lead_minutes;
  const count = frozenCount(d, nowMs, lead);
  const before = frozenBefore(d, nowMs, lead);
  const docs: PreparedDocument[] = [];
  const unchanged: UnchangedArea[] = [];
  for (const [area, mw] of Object.entries(agg.areas)) {
    const history = await versionHistory(kv, agg.delivery_day, area);
    const standing = standingVersion(history);
    const last = history.at(-1);
    const reference = standing?.quantities ?? [];
    if (phase === "intraday") {
      const change = openChange(mw, reference, count);
      if (change < cfg.intraday_min_change_mw) {
        unchanged.push({
          control_area: area,
          reason:
            `no open quarter-hour (from ${before}) differs by ${cfg.intraday_min_change_mw} MW or more from ${
              standing
                ? `version ${standing.version}, the schedule the TSO has`
                : "zero (no version the TSO has)"
            }`,
        });
        continue;
      }
    }
    // A rejected version is never sent again: the same aggregate then gets the next version.
    const above = last?.tso_status === "rejected" ? last.version : 0;
    const v = await scheduleVersion(kv, agg.delivery_day, area, agg.version, nowMs, above);
    const doc = scheduleFor(cfg, agg, area, mw, v.message_version, nowMs, { count, reference });
    docs.push({ area, doc, phase, frozen_before: before });
  }
  const leaveBeforeMs = count < d.quarterHours.length
    ? d.quarterHours[count].epochMilliseconds - lead * 60_000
    : nowMs;
  return { format: cfg.schedule_format === "cim" ? "cim" : "ess", docs, unchanged, leaveBeforeMs };
}

/**
 * The checked schedule document of `area` in aggregate `agg` with the configured parties
 * (`sender_eic`, `balancing_group`, `counterparty_eic`, `tso_party_eics`).
 * @param mw the area's open position per quarter-hour (MW)
 * @param nowMs creation time (epoch ms, UTC)
 * @param frozen the frozen positions and the quantities they carry (none when absent)
 * @throws {import("../domain/errors.ts").ScheduleInvalid} listing every problem
 */
export function scheduleFor(
  cfg: EffectiveConfig,
  agg: Pick<Aggregate, "delivery_day" | "version">,
  area: string,
  mw: number[],
  messageVersion: number,
  nowMs: number,
  frozen?: { count: number; reference: readonly number[] },
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
    frozen,
  });
  assertValidSchedule(doc);
  return doc;
}

/**
 * Records that a prepared document (as `file`) left for its TSO at `atMs` (epoch ms): its day's
 * and area's status becomes `sent` and the version enters the history; with `platformId` (the
 * market platform's submission id) it is polled.
 */
export async function markDocumentSent(
  kv: Deno.Kv,
  p: PreparedDocument,
  file: string,
  atMs: number,
  platformId?: string | null,
): Promise<void> {
  const { doc } = p;
  const at = new Date(atMs).toISOString();
  await recordVersionSent(kv, doc.day, doc.controlArea, {
    version: doc.messageVersion,
    aggregate_version: doc.aggregateVersion,
    phase: p.phase,
    sent_at: at,
    frozen_before: p.frozen_before,
    file,
    quantities: doc.purchase.map((v, i) => round3(v - doc.sale[i])),
  });
  await markSent(kv, doc.day, {
    control_area: doc.controlArea,
    receiver: doc.receiver,
    version: doc.messageVersion,
    file,
    at,
    ...(platformId ? { platform_id: platformId } : {}),
  });
}
