/**
 * The clearing lists that wait for the operator, as attention items (docs/console_attention.md;
 * docs/settlement.md, "Checking the settlement data"): per month and control area whose
 * balancing-group sums arrived after its last mark, one `clearing_open` warning with the MaBiS date
 * it is due by — StromNZV § 4 (4): objections without delay, within the main settlement (the 29th
 * working day after the month). Pure.
 * @module
 */
import type { AttentionItem } from "../wire/attention.ts";
import type { OpenClearing } from "../settlement/clearing_marks.ts";
import { weekdayDate } from "./day_texts.ts";
import { monthWords as monthName } from "./settlement_texts.ts";
import { tsoName } from "../fahrplan/tso_names.ts";

/**
 * The items of the waiting clearing lists.
 * @param mainSettlementEnd the end of the main settlement of a month (`YYYY-MM-DD`, the 29th MaBiS
 *   working day after it; lib/domain/mabis_calendar.ts)
 */
export function clearingItems(
  open: readonly OpenClearing[],
  mainSettlementEnd: (month: string) => string,
): AttentionItem[] {
  return open.map((c) => {
    const area = tsoName(c.control_area) ?? c.control_area;
    const again = c.mark ? ` again (marked ${c.mark.status} before the last sums arrived)` : "";
    return {
      code: "clearing_open",
      level: "warn",
      delivery_day: null,
      control_area: c.control_area,
      message: `The clearing list of ${
        monthName(c.month)
      } in ${area} waits to be checked${again}: compare the DSOs' balancing-group sums with ours and mark it checked or objected — the main settlement ends ${
        weekdayDate(mainSettlementEnd(c.month))
      } (29th working day, MaBiS).`,
    };
  });
}
