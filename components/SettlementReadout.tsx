/**
 * The values of one quarter-hour of the after-delivery chart ({@link SettlementChart}) as visible
 * text: the quarter-hour in Berlin time, schedule, day-ahead and actual in MW, the imbalance in
 * MWh (short or long, docs/settlement.md), the reBAP price of its direction in EUR/MWh (or the
 * TSOs' AEP estimate, said as "estimated price") and the cost in EUR, each in the operator's locale. A missing value is "—", never 0. A live region:
 * screen readers announce the change. Shown on tap, click and the arrow keys, so the values are
 * reachable by touch and keyboard, not only by hover titles.
 * @module
 */
import { money, power, price } from "../lib/console/format.ts";
import { imbalanceText } from "../lib/console/settlement_texts.ts";

/** One quarter-hour's values (`null`: unknown). */
export interface SettlementPoint {
  /** Berlin `HH:MM` of the start and the end. */
  from: string;
  to: string;
  schedule_mw: number | null;
  day_ahead_mw: number | null;
  actual_mw: number | null;
  imbalance_mwh: number | null;
  price_eur_mwh: number | null;
  /** True when the price is the TSOs' AEP estimate (the reBAP is not published yet). */
  price_estimated?: boolean;
  cost_eur: number | null;
}

/** Props of {@link SettlementReadout}. */
export interface SettlementReadoutProps {
  /** The chosen quarter-hour; `null` before the operator chose one. */
  at: SettlementPoint | null;
  locale: string;
  /** Id for `aria-describedby` of the chart. */
  id?: string;
}

/** "14:15–14:30 · schedule 12.0 MW · … · cost 49.10 EUR", or a hint. */
export function SettlementReadout({ at, locale, id }: SettlementReadoutProps) {
  if (!at) {
    return (
      <p class="chart-readout muted" id={id} aria-live="polite">
        Tap or drag along the chart, use ‹ previous · next ›, or focus it and use ← →, to read a
        quarter-hour's price and cost.
      </p>
    );
  }
  const parts: [string, string, string][] = [
    ["schedule", power(at.schedule_mw, locale), "sched"],
    ["day-ahead", power(at.day_ahead_mw, locale), "da"],
    ["actual", power(at.actual_mw, locale), "act"],
    ["imbalance", imbalanceText(at.imbalance_mwh, locale), "imb"],
    [
      at.price_estimated ? "estimated price" : "price",
      price(at.price_eur_mwh, locale),
      "price",
    ],
    [at.price_estimated ? "estimated cost" : "cost", money(at.cost_eur, locale), "cost"],
  ];
  return (
    <p class="chart-readout settlement-readout" id={id} aria-live="polite">
      <strong class="chart-readout-time">{at.from}–{at.to} Berlin</strong>
      {parts.map(([label, value, key]) => (
        <span key={key} class="chart-readout-value" data-part={key}>
          {label} <strong>{value}</strong>
        </span>
      ))}
    </p>
  );
}
