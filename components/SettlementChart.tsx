/**
 * One control area of a delivery day after delivery (docs/console_after_delivery.md), as an
 * SVG step chart over the day's UTC quarter-hours (92, 96 or 100), labelled in Berlin time:
 *
 * - the schedule the TSO had (solid), the last day-ahead version (dashed) and the actual (thick),
 *   in MW, consumption +, generation −; a line breaks where a value is `null`, never drawn at 0;
 * - the imbalance as the area between schedule and actual: hatched where the balancing group was
 *   short (actual above the schedule), dotted where it was long, so the two differ also without
 *   colour; a grey tick under the axis marks a quarter-hour whose imbalance is unknown.
 *
 * A tap, a click, a drag along the chart, the previous / next buttons ({@link QuarterHourSteps})
 * or the arrow keys on the focused chart (← → a quarter-hour, Page Up/Down an hour, Home/End;
 * keyboard focus alone shows the first) show a quarter-hour's values, price and cost in
 * {@link SettlementReadout}; hovering shows them as a title. With `selection` the quarter-hour is
 * its owner's (the costliest quarter-hours select one). Drawn at its box's width (measured), so
 * the 12 px labels stay 12 px on a phone. Colours come from CSS classes (`static/settlement.css`),
 * no `style` attribute: the console's CSP holds.
 * @module
 */
import { useId, useMemo } from "preact/hooks";
import type { AreaSettlement } from "../lib/wire/settlement.ts";
import { formatBerlinHm, money, power, tickLabels } from "../lib/console/format.ts";
import { areaName, count, imbalanceText } from "../lib/console/settlement_texts.ts";
import { labelEveryHours, ticks } from "./PositionChart.tsx";
import { type ChartSelection, PLOT_X, useChartPlot } from "./chart_plot.ts";
import { QuarterHourSteps } from "./QuarterHourSteps.tsx";
import { type SettlementPoint, SettlementReadout } from "./SettlementReadout.tsx";

/** Margins in px: the top one holds the axis title, the bottom one the time labels and gap ticks. */
const M = { top: 28, bottom: 30, ...PLOT_X };

/**
 * An SVG path of steps, one per quarter-hour, that breaks where a value is `null` (or not
 * finite): `M x0,y L x1,y L x1,y' …`.
 */
export function stepPath(
  values: readonly (number | null)[],
  x: (i: number) => number,
  y: (v: number) => number,
): string {
  const f = (v: number) => v.toFixed(1);
  let d = "";
  let open = false;
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) return void (open = false);
    d += `${open ? "L" : "M"}${f(x(i))},${f(y(v))}L${f(x(i + 1))},${f(y(v))}`;
    open = true;
  });
  return d;
}

/** The values of quarter-hour `i` of `area` for the readout. */
export function pointAt(area: AreaSettlement, quarterHours: readonly string[], i: number) {
  const at = (a: readonly (number | null)[] | null, k: number) => a?.[k] ?? null;
  return {
    from: formatBerlinHm(quarterHours[i]),
    to: quarterHours[i + 1]
      ? formatBerlinHm(quarterHours[i + 1])
      : formatBerlinHm(new Date(Date.parse(quarterHours[i]) + 900_000).toISOString()),
    schedule_mw: at(area.schedule_mw, i),
    day_ahead_mw: at(area.day_ahead_mw, i),
    actual_mw: at(area.actual_mw, i),
    imbalance_mwh: at(area.imbalance_mwh, i),
    price_eur_mwh: at(area.price_eur_mwh, i),
    price_estimated: area.price_source?.[i] === "aep_estimate",
    cost_eur: at(area.cost_eur, i),
  } satisfies SettlementPoint;
}

/** Props of {@link SettlementChart}. */
export interface SettlementChartProps {
  area: AreaSettlement;
  /** ISO-8601 UTC starts of the day's quarter-hours. */
  quarterHours: readonly string[];
  /** Delivery day `YYYY-MM-DD`, for names. */
  day: string;
  /** Locale of the numbers. */
  locale: string;
  /** Fixed drawing width in px (tests); without it, the width of the chart's box. */
  width?: number;
  /** The quarter-hour read out, kept by the owner; without it, the chart's own. */
  selection?: ChartSelection;
}

/** The chart of one area with its readout and legend. */
export function SettlementChart(p: SettlementChartProps) {
  const { area, quarterHours: qh, locale } = p;
  const { plot, W, at, setAt, handlers } = useChartPlot(
    p.width,
    [p.day, area.control_area],
    p.selection,
  );
  const H = W < 600 ? 220 : 260;
  const n = Math.max(qh.length, 1);
  const series = [area.schedule_mw, area.day_ahead_mw, area.actual_mw];
  const all = series.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  // The axis spans the values, not 0 as well: the imbalance between the lines is what matters.
  const lo0 = all.length ? Math.min(...all) : 0;
  const hi0 = all.length ? Math.max(...all) : 0;
  const pad = (hi0 - lo0) * 0.08 || 1;
  const ys = ticks(lo0 - pad, hi0 + pad, H < 240 ? 4 : 5);
  const yLabels = tickLabels(ys, locale);
  // The padding stays when the ticks end inside it: no line on the plot's edge.
  const lo = Math.min(lo0 - pad, ys[0]);
  const hi = Math.max(hi0 + pad, ys[ys.length - 1]);
  // Never negative, also while the box is narrower than the margins (a `<rect>` refuses it).
  const iw = Math.max(W - M.left - M.right, 1);
  const ih = H - M.top - M.bottom;
  const x = (i: number) => M.left + (i * iw) / n;
  const y = (v: number) => M.top + ((hi - v) / (hi - lo || 1)) * ih;
  const every = labelEveryHours(iw);
  const labels = qh.flatMap((q, i) => {
    const hm = formatBerlinHm(q);
    return hm.endsWith(":00") && Number(hm.slice(0, 2)) % every === 0 ? [{ i, text: hm }] : [];
  });
  // Unique per instance: the same day can be open in the day list and in the month view.
  const uid = useId();
  const id = `settle-${uid}-${area.control_area}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const name = areaName(area);
  const bands = qh.flatMap((_, i) => {
    const s = area.schedule_mw[i];
    const a = area.actual_mw[i];
    if (s === null || a === null || s === undefined || a === undefined || s === a) return [];
    const short = (area.imbalance_mwh[i] ?? a - s) > 0;
    return [{ i, short, top: y(Math.max(s, a)), bottom: y(Math.min(s, a)) }];
  });
  const unknown = qh.flatMap((_, i) => (area.imbalance_mwh[i] ?? null) === null ? [i] : []);

  const readout = at === null || !qh[at] ? null : pointAt(area, qh, at);
  // The hover targets and their titles change with the data and the width, not with the
  // quarter-hour read out: drawn once, not at every step of the readout.
  const hits = useMemo(() =>
    qh.map((q, i) => {
      const v = pointAt(area, qh, i);
      return (
        <rect key={q} class="hit" x={x(i)} y={M.top} width={iw / n} height={ih}>
          <title>
            {`${v.from} · actual ${power(v.actual_mw, locale)} · schedule ${
              power(v.schedule_mw, locale)
            } · ${imbalanceText(v.imbalance_mwh, locale)} · ${money(v.cost_eur, locale)}`}
          </title>
        </rect>
      );
    }), [area, qh, locale, W, H]);
  return (
    <figure class="chart settlement-chart" data-area={area.control_area}>
      <div
        ref={plot}
        class="chart-plot"
        tabIndex={0}
        role="group"
        aria-label={`After delivery ${p.day} in ${name}: tap, or use the arrow keys, to read a quarter-hour's price and cost`}
        aria-describedby={`${id}-readout`}
        {...handlers(qh.length)}
        onFocus={(e) => {
          // Keyboard focus shows the first quarter-hour at once; a click picks its own.
          const el = e.currentTarget as HTMLElement;
          if (at === null && qh.length && el.matches?.(":focus-visible")) setAt(0);
        }}
      >
        <svg
          viewBox={`0 0 ${W} ${H}`}
          width={W}
          height={H}
          role="img"
          aria-labelledby={`${id}-title`}
          class="chart-svg settlement-svg"
        >
          <title id={`${id}-title`}>
            {name}{" "}
            {p.day}: schedule, day-ahead and actual in MW per quarter-hour; hatched: short, dotted:
            long
          </title>
          <defs>
            <pattern
              id={`${id}-short`}
              patternUnits="userSpaceOnUse"
              width="6"
              height="6"
              patternTransform="rotate(45)"
            >
              <rect class="imb-bg-short" width="6" height="6" />
              <line class="imb-hatch-short" x1="0" y1="0" x2="0" y2="6" />
            </pattern>
            <pattern id={`${id}-long`} patternUnits="userSpaceOnUse" width="5" height="5">
              <rect class="imb-bg-long" width="5" height="5" />
              <circle class="imb-dot-long" cx="2.5" cy="2.5" r="1.1" />
            </pattern>
          </defs>
          <text class="axis-label" x={4} y={13} text-anchor="start">
            MW (consumption +, generation −)
          </text>
          {ys.map((v, k) => (
            <g key={`y${v}`} class={v === 0 ? "grid zero" : "grid"}>
              <line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} />
              <text x={M.left - 6} y={y(v) + 4} text-anchor="end">{yLabels[k]}</text>
            </g>
          ))}
          {labels.map(({ i, text }) => (
            <g key={`x${i}`} class="grid xgrid">
              <line x1={x(i)} x2={x(i)} y1={M.top} y2={H - M.bottom} />
              <text x={x(i)} y={H - 6} text-anchor="middle">{text}</text>
            </g>
          ))}
          <g class="imbalance">
            {bands.map((b) => (
              <rect
                key={b.i}
                class={b.short ? "imb imb-short" : "imb imb-long"}
                fill={`url(#${id}-${b.short ? "short" : "long"})`}
                x={x(b.i)}
                y={b.top}
                width={iw / n}
                height={Math.max(b.bottom - b.top, 0.5)}
              />
            ))}
          </g>
          <g class="unknown" aria-hidden="true">
            {unknown.map((i) => (
              <rect
                key={i}
                class="missing-mark"
                x={x(i)}
                y={H - M.bottom + 2}
                width={iw / n}
                height={4}
              />
            ))}
          </g>
          <path class="series settle-da" d={stepPath(area.day_ahead_mw, x, y)} />
          <path class="series settle-sched" d={stepPath(area.schedule_mw, x, y)} />
          <path class="series settle-act" d={stepPath(area.actual_mw, x, y)} />
          {readout && at !== null && (
            <g class="cursor" aria-hidden="true">
              <rect x={x(at)} y={M.top} width={Math.max(iw / n, 2)} height={ih} />
            </g>
          )}
          {hits}
        </svg>
      </div>
      <QuarterHourSteps
        at={at}
        count={qh.length}
        setAt={setAt}
        what={`${name} ${p.day}`}
        readout={`${id}-readout`}
      />
      <SettlementReadout at={readout} locale={locale} id={`${id}-readout`} />
      <figcaption>
        <ul class="legend settlement-legend">
          <li>
            <span class="swatch settle-swatch-sched" aria-hidden="true" />
            schedule{area.schedule_version !== null ? ` v${area.schedule_version}` : " (none)"}
          </li>
          <li>
            <span class="swatch settle-swatch-da" aria-hidden="true" />
            day-ahead{area.day_ahead_version !== null ? ` v${area.day_ahead_version}` : " (none)"}
          </li>
          <li>
            <span class="swatch settle-swatch-act" aria-hidden="true" />
            actual{area.actual_source === "balancing_group_sum" ? " (balancing-group sum)" : ""}
          </li>
          <li>
            <span class="area-swatch imb-swatch-short" aria-hidden="true" />
            short (hatched)
          </li>
          <li>
            <span class="area-swatch imb-swatch-long" aria-hidden="true" />
            long (dotted)
          </li>
          {unknown.length > 0 && (
            <li>
              <span class="area-swatch missing-swatch" aria-hidden="true" />
              imbalance unknown ({count(unknown.length, "quarter-hour", "quarter-hours", locale)})
            </li>
          )}
        </ul>
      </figcaption>
    </figure>
  );
}
