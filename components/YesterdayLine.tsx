/**
 * Yesterday's money in one line, in the attention box under the answer about today and tomorrow
 * (docs/console_attention.md; issue 36): "Yesterday (Fri 27 Nov), imbalance in all 4 areas:
 * 1.56 MWh short, 1.16 MWh long, 24.43 EUR; the day-ahead schedule alone: 759.82 EUR." — the
 * figures of `GET /v1/delivery-days/{day}/settlement` as its view says them (the day's totals as
 * the service answers them, written by the rules of lib/console/format.ts). "Yesterday" is a link
 * that opens the day's view in the delivery days; the day's status badge follows (`provisional`
 * while a price is the TSOs' AEP estimate or an actual is provisional or missing, docs/settlement.md),
 * with "estimated" said in words (why, in the day's view). Without actuals it says so; a refusal is left to the view.
 * @module
 */
import { weekdayDate } from "../lib/console/day_texts.ts";
import type { SettlementLoad } from "../lib/console/settlement_reads.ts";
import { anyActual } from "../lib/console/settlement_reads.ts";
import { count, totalsFormat, totalsWords } from "../lib/console/settlement_texts.ts";
import { StatusBadge } from "./SettlementSummary.tsx";

/** Props of {@link YesterdayLine}. */
export interface YesterdayLineProps {
  /** Yesterday (`YYYY-MM-DD`, Berlin). */
  day: string;
  load: SettlementLoad;
  locale: string;
  /** Opens the day in the delivery days. */
  onSelect: (day: string) => void;
}

/** The line; nothing while loading or after a refusal. */
export function YesterdayLine({ day, load, locale, onSelect }: YesterdayLineProps) {
  if (load.kind === "loading" || load.kind === "error") return null;
  const link = (
    <a
      href={`#day-${day}`}
      onClick={(e) => {
        e.preventDefault();
        onSelect(day);
      }}
    >
      Yesterday
    </a>
  );
  if (load.kind === "none" || !anyActual(load.body) || !load.body.areas.length) {
    return (
      <p class="attention-yesterday">
        {link} ({weekdayDate(day)}): no actuals yet, so no imbalance cost.
      </p>
    );
  }
  const s = load.body;
  const where = s.areas.length === 1
    ? (s.areas[0].name || s.areas[0].control_area)
    : `all ${count(s.areas.length, "area", "areas", locale)}`;
  const format = totalsFormat(s.areas.map((a) => a.totals), s.totals, locale);
  // Without any price the cost is no 0.00 EUR: it is not known yet.
  const priced = s.areas.some((a) => a.completeness.priced_quarter_hours > 0);
  const words = priced
    ? totalsWords(s.totals, locale, format)
    : `${format.short(s.totals.short_mwh)} short, ${
      format.long(s.totals.long_mwh)
    } long; no imbalance prices yet, so no cost`;
  const estimated = s.areas.some((a) => a.completeness.estimated_quarter_hours > 0);
  return (
    <p class="attention-yesterday" data-day={day}>
      {link} ({weekdayDate(day)}), imbalance in {where}: {words}. <StatusBadge status={s.status} />
      {estimated && " estimated"}
    </p>
  );
}
