/**
 * What the operator sees of a day's schedules (docs/intraday.md, "Version history"): per control
 * area the TSO's status of the latest document, with the phase, `sent_at` and `frozen_before` of
 * its version, when its first version went out, and the deviation left in the frozen quarter-hours — energy the BRP can no longer
 * schedule away.
 * @module
 */
import { frozenCount } from "../domain/deadlines.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { historyVersion, standingVersion, versionHistory } from "../fahrplan/history.ts";
import { type TsoStatus, tsoStatuses } from "../fahrplan/tso_status.ts";
import { statusRequestsOf } from "../fahrplan/status_requests.ts";
import type { SchedulePhase } from "../domain/deadlines.ts";
import { readAggregate } from "./aggregate.ts";

/** One control area's schedule entry of the overview. */
export interface ScheduleEntry extends TsoStatus {
  phase: SchedulePhase | null;
  sent_at: string | null;
  frozen_before: string | null;
  /**
   * When the area's first version (v1) was handed over, ISO-8601 UTC; `null` without history.
   * After the TSO deadline it means the day-ahead deadline was missed (docs/console.md, "Rows").
   */
  first_sent_at: string | null;
  /**
   * MWh: Σ over the quarter-hours frozen now of |open position − the schedule the TSO has| ×
   * 0.25 h, 3 decimals (after delivery: the schedule it had at delivery, before any post-delivery
   * correction); `null` before the first aggregate.
   */
  locked_deviation_mwh: number | null;
  /**
   * The last status request about this version (docs/fahrplan.md, "Status requests"), with
   * `answered` = the TSO's status changed since; `null` when none was sent for it.
   */
  status_request: {
    at: string;
    file: string;
    state: "ack" | "cnf" | "manual";
    answered: boolean;
  } | null;
}

/**
 * The deviation (MWh, 3 decimals) between the open position `mw` and the schedule the TSO has
 * (`standing`, MW; 0 where none) over the first `frozen` quarter-hours.
 */
export function lockedDeviationMwh(
  mw: readonly number[],
  standing: readonly number[],
  frozen: number,
): number {
  let mwh = 0;
  for (let i = 0; i < Math.min(frozen, mw.length); i++) {
    mwh += Math.abs(mw[i] - (standing[i] ?? 0)) * 0.25;
  }
  return Math.round(mwh * 1000) / 1000 + 0;
}

/**
 * The schedule entries of `day` at `nowMs` (lead time `leadMinutes`), one per control area with a
 * document, in KV order.
 */
export async function scheduleEntries(
  kv: Deno.Kv,
  day: string,
  nowMs: number,
  leadMinutes: number,
): Promise<ScheduleEntry[]> {
  const statuses = await tsoStatuses(kv, day);
  if (!statuses.length) return [];
  const agg = await readAggregate(kv, day);
  const frozen = frozenCount(deliveryDay(day), nowMs, leadMinutes);
  const requests = await statusRequestsOf(kv, day);
  return await Promise.all(statuses.map(async (t) => {
    const srq = requests[t.control_area];
    const h = await historyVersion(kv, day, t.control_area, t.version);
    const first = t.version === 1 ? h : await historyVersion(kv, day, t.control_area, 1);
    const mw = agg?.areas[t.control_area];
    // The schedule the TSO had at delivery: a post-delivery correction changes what is settled
    // (docs/post-delivery.md), not the forecast error that delivery locked in.
    const standing = frozen > 0 && mw
      ? standingVersion(
        (await versionHistory(kv, day, t.control_area)).filter((v) => v.phase !== "post_delivery"),
      )?.quantities ?? []
      : [];
    return {
      ...t,
      phase: h?.phase ?? null,
      sent_at: h?.sent_at ?? null,
      frozen_before: h?.frozen_before ?? null,
      first_sent_at: first?.sent_at ?? null,
      locked_deviation_mwh: mw ? lockedDeviationMwh(mw, standing, frozen) : null,
      status_request: srq && srq.version === t.version
        ? { at: srq.at, file: srq.file, state: srq.state, answered: t.at > srq.at }
        : null,
    };
  }));
}
