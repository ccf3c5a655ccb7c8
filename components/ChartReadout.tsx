/**
 * The values of one quarter-hour of the open-position chart, as visible text: the quarter-hour
 * in local time, and per control area (with its TSO's name) the open position in MW, plus their
 * sum when there is more than one area. Shown when the operator taps or clicks the chart or
 * moves along it with the arrow keys, so the values are reachable by touch and keyboard, not
 * only by hover titles. A live region: screen readers announce the change.
 * @module
 */
import { browserLocale, power, powerTable } from "../lib/console/format.ts";
import { tsoName } from "../lib/fahrplan/tso_names.ts";

/** One control area's value in the readout. */
export interface ReadoutValue {
  /** Control area EIC. */
  area: string;
  /** Open position in MW (consumption positive); `NaN` when missing. */
  mw: number;
  /** Series colour index (`s0`…`s5`), as in the chart. */
  series: number;
  /** MW of the schedule the TSO has in this quarter-hour; absent when the chart has none. */
  tsoMw?: number;
}

/** Props of {@link ChartReadout}. */
export interface ChartReadoutProps {
  /** The chosen quarter-hour; `null` before the operator chose one. */
  at: { from: string; to: string; values: ReadoutValue[] } | null;
  /** Id for `aria-describedby` of the chart. */
  id?: string;
  /** Locale of the numbers (default: the browser's). */
  locale?: string;
}

/** "14:15–14:30 · 10YDE-RWENET---I Amprion 1,200 MW · … · total 2,000 MW", or a hint. */
export function ChartReadout({ at, id, locale = browserLocale() }: ChartReadoutProps) {
  if (!at) {
    return (
      <p class="chart-readout muted" id={id} aria-live="polite">
        Tap or drag along the chart, use ‹ previous · next ›, or focus it and use ← →, to read a
        quarter-hour's values.
      </p>
    );
  }
  const finite = at.values.filter((v) => Number.isFinite(v.mw));
  const total = finite.reduce((s, v) => s + v.mw, 0);
  // The areas and their total written alike: the values shown add up to the total shown.
  const mw = powerTable([{ parts: finite.map((v) => v.mw), total }], locale);
  return (
    <p class="chart-readout" id={id} aria-live="polite">
      <strong class="chart-readout-time">{at.from}–{at.to}</strong>
      {at.values.map((v) => {
        const name = tsoName(v.area);
        return (
          <span key={v.area} class="chart-readout-value">
            <span class={`swatch s${v.series % 6}`} aria-hidden="true" />
            <span class="mono">{v.area}</span>
            {name && <span class="tso-name">{name}</span>}{" "}
            <strong>{Number.isFinite(v.mw) ? mw(v.mw) : "no value"}</strong>
            {v.tsoMw !== undefined && Number.isFinite(v.tsoMw) && (
              <span class="chart-readout-tso">(TSO has {power(v.tsoMw, locale)})</span>
            )}
          </span>
        );
      })}
      {at.values.length > 1 && (
        <span class="chart-readout-value">
          total{finite.length < at.values.length ? " of the areas with a value" : ""}{" "}
          <strong>{mw(total)}</strong>
        </span>
      )}
    </p>
  );
}
