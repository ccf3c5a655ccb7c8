/**
 * The version history of the schedule of one delivery day and control area (docs/intraday.md,
 * "Version history"): every version that left, with its phase, when it was sent, the first open
 * quarter-hour at sending (`frozen_before`), the quantities it carried and what the TSO answered
 * about it. The last version the TSO has not rejected is the schedule the TSO has; the next
 * version freezes its quarter-hours inside the lead time to it. Kept in KV
 * (`KEYS.scheduleHistory`, one record per version), shared by replicas.
 * @module
 */
import type { SchedulePhase } from "../domain/deadlines.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type { TsoState } from "./tso_status.ts";

/** One version that left for the TSO. */
export interface ScheduleVersionRecord {
  /** Message version (ESS `MessageVersion`, CIM `revisionNumber`). */
  version: number;
  /** Aggregate version whose open position it carries (in its open quarter-hours). */
  aggregate_version: number;
  /** `day_ahead` when sent before the TSO deadline, else `intraday`. */
  phase: SchedulePhase;
  /** ISO-8601 UTC instant it was handed over. */
  sent_at: string;
  /** ISO-8601 UTC start of the first open quarter-hour at sending (the day's end: none open). */
  frozen_before: string;
  /** BDEW file name of the document. */
  file: string;
  /** MW per quarter-hour as sent, purchase − sale (consumption +), 3 decimals. */
  quantities: number[];
  /** What the TSO made of this version. */
  tso_status: TsoState;
  reason_code: string | null;
  reason_text: string | null;
  /** ISO-8601 UTC instant of the TSO's last answer about it; `null` before any. */
  answered_at: string | null;
}

/**
 * Records a version as sent. A resend of the same version (after a partial failure) keeps what
 * the TSO already answered about it.
 */
export async function recordVersionSent(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  rec: Omit<ScheduleVersionRecord, "tso_status" | "reason_code" | "reason_text" | "answered_at">,
): Promise<void> {
  const key = KEYS.scheduleHistory(day, controlArea, rec.version);
  await retryKv(`schedule history of ${day} ${controlArea}`, async () => {
    const cur = await kv.get<ScheduleVersionRecord>(key);
    if (cur.value) return true;
    const next: ScheduleVersionRecord = {
      ...rec,
      tso_status: "sent",
      reason_code: null,
      reason_text: null,
      answered_at: null,
    };
    return (await kv.atomic().check(cur).set(key, next).commit()).ok || undefined;
  });
}

/**
 * Applies a TSO answer to the version it names (also an older one: a rejection of v3 that
 * arrives after v4 left still tells which schedule the TSO has). A final state (`rejected`,
 * `confirmed`, `anomaly`) is not taken back by a late acknowledgement.
 * @returns false when no such version was sent
 */
export async function recordVersionAnswer(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  version: number,
  change: {
    tso_status: TsoState;
    reason_code: string | null;
    reason_text: string | null;
    at: string;
  },
): Promise<boolean> {
  const key = KEYS.scheduleHistory(day, controlArea, version);
  return await retryKv(`schedule history of ${day} ${controlArea}`, async () => {
    const cur = await kv.get<ScheduleVersionRecord>(key);
    if (!cur.value) return false;
    const final = ["rejected", "confirmed", "anomaly"].includes(cur.value.tso_status);
    if (final && (change.tso_status === "acknowledged" || change.tso_status === "sent")) {
      return true;
    }
    const next: ScheduleVersionRecord = {
      ...cur.value,
      tso_status: change.tso_status,
      reason_code: change.reason_code,
      reason_text: change.reason_text,
      answered_at: change.at,
    };
    return (await kv.atomic().check(cur).set(key, next).commit()).ok || undefined;
  });
}

/** Every sent version of a day and area, oldest first. */
export async function versionHistory(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
): Promise<ScheduleVersionRecord[]> {
  const out: ScheduleVersionRecord[] = [];
  for await (
    const e of kv.list<ScheduleVersionRecord>(KEYS.scheduleHistoryOf(day, controlArea))
  ) out.push(e.value);
  return out.sort((a, b) => a.version - b.version);
}

/** One version of a day and area, `null` when it was never sent. */
export async function historyVersion(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  version: number,
): Promise<ScheduleVersionRecord | null> {
  return (await kv.get<ScheduleVersionRecord>(KEYS.scheduleHistory(day, controlArea, version)))
    .value;
}

/**
 * The schedule the TSO has: the newest version it has not rejected (`null` when none was sent or
 * every one was rejected).
 */
export function standingVersion(
  history: readonly ScheduleVersionRecord[],
): ScheduleVersionRecord | null {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].tso_status !== "rejected") return history[i];
  }
  return null;
}
