/**
 * The post-delivery correction window of one delivery day and control area (docs/post-delivery.md):
 * from the end of delivery until the TSO's deadline (lib/domain/tso_calendars.ts) with the
 * configured non-working days of that TSO (`tso_non_working_days`), and the view of a day
 * (`GET /v1/delivery-days/{day}/post-delivery`): per active control area the window, the proposal
 * from the day's settlement and the corrections sent.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { tsoOverrides } from "../config/fields.ts";
import { nonWorkingDaysOf } from "../config/post_delivery_fields.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { type CorrectionDeadline, correctionDeadline } from "../domain/tso_calendars.ts";
import { standingVersion, versionHistory } from "../fahrplan/history.ts";
import { tsoOf } from "../fahrplan/parties.ts";
import { settleDay } from "../settlement/settle_day.ts";
import type { AreaPostDelivery, PostDelivery } from "../wire/post_delivery.ts";
import { proposalOf } from "./proposal.ts";

/** The window of one day and area at one instant. */
export interface CorrectionWindow extends CorrectionDeadline {
  control_area: string;
  /** `before_delivery`, `open` or `closed` at the instant asked. */
  state: "before_delivery" | "open" | "closed";
  /** End of delivery (UTC). */
  delivery_end: Temporal.Instant;
}

/**
 * The window of `day` (`YYYY-MM-DD`, Berlin) in `area` at `nowMs`: the TSO is the area's receiver
 * (`tso_party_eics` first, then the built-in four), its calendar the one of that TSO.
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed day
 */
export function correctionWindow(
  cfg: Pick<EffectiveConfig, "tso_party_eics" | "tso_non_working_days">,
  day: string,
  area: string,
  nowMs: number,
): CorrectionWindow {
  const tso = tsoOf(area, tsoOverrides(cfg.tso_party_eics)) || area;
  const d = correctionDeadline(tso, day, nonWorkingDaysOf(cfg.tso_non_working_days, tso));
  const end = deliveryDay(day).end;
  const state = nowMs < end.epochMilliseconds
    ? "before_delivery"
    : nowMs < d.deadline.epochMilliseconds
    ? "open"
    : "closed";
  return { ...d, control_area: area, state, delivery_end: end };
}

/**
 * The post-delivery view of `day` at `nowMs`: every active control area with its window, the
 * proposal (from the settlement computed now, docs/settlement.md) and the corrections sent.
 */
export async function postDeliveryView(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  day: string,
  nowMs: number,
): Promise<PostDelivery> {
  const dd = deliveryDay(day);
  const settlement = await settleDay(kv, cfg, day, nowMs);
  const areas: AreaPostDelivery[] = [];
  for (const area of cfg.active_control_areas) {
    const w = correctionWindow(cfg, day, area, nowMs);
    const history = await versionHistory(kv, day, area);
    const standing = standingVersion(history);
    const settled = settlement.areas.find((a) => a.control_area === area);
    areas.push({
      control_area: area,
      tso: w.tso,
      tso_name: w.tso_name,
      calendar: w.calendar,
      deadline: w.deadline.toString(),
      deadline_local: w.local,
      rule: w.rule,
      state: w.state,
      standing_version: standing?.version ?? null,
      proposal: standing && settled ? proposalOf(settled, standing) : null,
      corrections: history.filter((v) => v.phase === "post_delivery").map((v) => ({
        version: v.version,
        sent_at: v.sent_at,
        file: v.file,
        tso_status: v.tso_status,
        reason_text: v.reason_text,
      })),
    });
  }
  return {
    delivery_day: day,
    quarter_hours: dd.quarterHours.map((q) => q.toString()),
    delivery_end: dd.end.toString(),
    computed_at: new Date(nowMs).toISOString(),
    areas,
  };
}
