/**
 * What one control area's settlement says besides its chart (docs/console_after_delivery.md):
 * the totals in one sentence, what the intraday versions saved, completeness (metered,
 * profile-settled and missing market locations, priced quarter-hours, provisional or final), the
 * accuracy of schedule and day-ahead, the ten costliest quarter-hours (by EUR; a row selects its
 * quarter-hour in the chart) and the sources of the forecast error (profile classes, customer
 * forecasts), largest first. Numbers in the operator's locale with their units; a missing value
 * is "—".
 * @module
 */
import type { AreaSettlement } from "../lib/wire/settlement.ts";
import { energy, formatBerlinHm, money, percent, power, price } from "../lib/console/format.ts";
import { DeviationLocations } from "./DeviationLocations.tsx";
import {
  areaName,
  completenessWords,
  costliest,
  imbalanceText,
  provisionalReason,
  savingWords,
  sourceLines,
  sumDifferenceMwh,
  type TotalsFormat,
  totalsSentence,
} from "../lib/console/settlement_texts.ts";

/** Props of {@link SettlementSummary}. */
export interface SettlementSummaryProps {
  area: AreaSettlement;
  day: string;
  locale: string;
  /** The service's clock (ms), for "yesterday". */
  nowMs: number;
  /**
   * Whether the area's totals sentence is said (default); off when the day's sentence above
   * already says the same of its only area.
   */
  totals?: boolean;
  /** How the area's totals are written (those of its day's group; default each on its own). */
  format?: TotalsFormat;
  /** The day's UTC quarter-hour starts (`quarter_hours`): the costliest quarter-hours by time. */
  quarterHours: readonly string[];
  /** The quarter-hour shown in the area's chart, and how a row of the table selects one. */
  selected?: number | null;
  onSelect?: (index: number) => void;
}

/** The status badge: `final` (green) or `provisional` (amber). */
export function StatusBadge({ status }: { status: "provisional" | "final" }) {
  return <span class={`badge ${status === "final" ? "badge-ok" : "badge-warn"}`}>{status}</span>;
}

/** The sentence, completeness, accuracy, worst quarter-hours and sources of one area. */
export function SettlementSummary(
  { area, day, locale, nowMs, totals = true, format, quarterHours, selected, onSelect }:
    SettlementSummaryProps,
) {
  const c = area.completeness;
  const saving = savingWords(area.totals, locale);
  const reason = provisionalReason(c, locale);
  const diff = sumDifferenceMwh(area);
  const sources = sourceLines(area.accuracy.by_source, locale);
  const costly = costliest(area, quarterHours);
  const acc = [
    ["schedule", area.accuracy.schedule],
    ["day-ahead", area.accuracy.day_ahead],
  ] as const;
  return (
    <div class="settlement-summary">
      <p class="settlement-sentence">
        {totals &&
          `${
            totalsSentence({
              day,
              where: areaName(area),
              totals: area.totals,
              locale,
              nowMs,
              format,
            })
          } `}
        {saving && <span class="muted">{`${saving[0].toUpperCase()}${saving.slice(1)}.`}</span>}
      </p>
      <p class="settlement-completeness">
        <StatusBadge status={c.status} />{" "}
        {completenessWords(c, locale, area.actual_mw.filter((v) => v !== null).length)}
        {reason && <span class="muted">{` · ${reason}`}</span>}
      </p>
      {area.actual_source === "balancing_group_sum" && (
        <p class="muted">
          Actual: the TSO's balancing-group sum
          {diff !== null ? `; our market-location sum differs by ${energy(diff, locale)}` : ""}.
        </p>
      )}
      <dl class="settlement-accuracy">
        {acc.map(([label, a]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>
              MAE {power(a.mae_mw, locale)} · bias {power(a.bias_mw, locale)} · nMAE{" "}
              {percent(a.nmae_pct, locale)}
            </dd>
          </div>
        ))}
      </dl>
      {costly.length > 0 && (
        <details class="settlement-worst">
          <summary>
            The {costly.length} costliest quarter-hours in {areaName(area)}
          </summary>
          <table class="worst-table">
            <thead>
              <tr>
                <th scope="col">Berlin</th>
                <th scope="col">Imbalance</th>
                <th scope="col">Price</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {costly.map((w) => (
                <tr key={w.index} class={selected === w.index ? "selected" : undefined}>
                  <th scope="row">
                    {onSelect
                      ? (
                        <button
                          type="button"
                          class="linklike"
                          aria-pressed={selected === w.index ? "true" : "false"}
                          title="show this quarter-hour in the chart"
                          onClick={() => onSelect(w.index)}
                        >
                          {formatBerlinHm(w.start)}
                        </button>
                      )
                      : formatBerlinHm(w.start)}
                  </th>
                  <td>{imbalanceText(w.imbalance_mwh, locale)}</td>
                  <td>{price(w.price_eur_mwh, locale)}</td>
                  <td>{money(w.cost_eur, locale)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {sources.length > 0 && (
        <div class="settlement-sources">
          <h4>Where the deviation came from</h4>
          <ol>
            {sources.map((s) => <li key={s}>{s}</li>)}
          </ol>
          <DeviationLocations
            day={day}
            area={area.control_area}
            name={areaName(area)}
            locale={locale}
          />
        </div>
      )}
    </div>
  );
}
