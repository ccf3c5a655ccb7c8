/**
 * The settlement of a delivery day and of a month (docs/settlement.md), computed on read from the
 * stored inputs: every answer reflects the inputs as they are then (a correction of an actual or a
 * price shows in the next read; nothing is cached that could go stale). Measured: see
 * docs/settlement.md, "Cost".
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { addDays, deliveryDay, parseDay } from "../domain/delivery_day.ts";
import type { DaySettlement, MonthSettlement } from "../wire/settlement.ts";
import { dayTotals, settleArea, sumTotals } from "./compute.ts";
import { readSettlementInputs } from "./day_inputs.ts";

/** The settlement of `day` (local date), computed at `nowMs`. */
export async function settleDay(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  day: string,
  nowMs: number,
): Promise<DaySettlement & { any_input: boolean }> {
  const inputs = await readSettlementInputs(kv, cfg, day);
  const areas = inputs.areas.map(settleArea);
  return {
    delivery_day: day,
    quarter_hours: deliveryDay(day).quarterHours.map((q) => q.toString()),
    computed_at: new Date(nowMs).toISOString(),
    status: areas.length > 0 && areas.every((a) => a.completeness.status === "final")
      ? "final"
      : "provisional",
    areas,
    totals: dayTotals(areas),
    id_aep_eur_mwh: inputs.id_aep,
    any_input: inputs.any,
  };
}

/**
 * The month view: every day of the local month `YYYY-MM` whose delivery has ended by `nowMs` and
 * that has any settlement input × area.
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed month
 */
export async function settleMonth(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  month: string,
  nowMs: number,
): Promise<MonthSettlement> {
  const first = parseDay(`${month}-01`).toString();
  const cells: MonthSettlement["cells"] = [];
  const names = new Map<string, string>();
  for (let day = first; day.startsWith(month); day = addDays(day, 1)) {
    // A day still in delivery, or to come, has nothing to settle yet (its schedule may be sent).
    if (deliveryDay(day).end.epochMilliseconds > nowMs) break;
    const d = await settleDay(kv, cfg, day, nowMs);
    if (!d.any_input) continue;
    for (const a of d.areas) {
      names.set(a.control_area, a.name);
      cells.push({
        delivery_day: day,
        control_area: a.control_area,
        short_mwh: a.totals.short_mwh,
        long_mwh: a.totals.long_mwh,
        cost_eur: a.totals.cost_eur,
        day_ahead_cost_eur: a.totals.day_ahead_cost_eur,
        imbalance_avoided_eur: a.totals.imbalance_avoided_eur,
        intraday_energy_cost_eur: a.totals.intraday_energy_cost_eur,
        intraday_saving_eur: a.totals.intraday_saving_eur,
        post_delivery_moved_eur: a.totals.post_delivery_moved_eur,
        status: a.completeness.status,
        actual_quarter_hours: a.actual_mw.filter((v) => v !== null).length,
      });
    }
  }
  return {
    month,
    areas: [...names].map(([control_area, name]) => ({ control_area, name })),
    cells,
    totals: sumTotals(cells),
  };
}
