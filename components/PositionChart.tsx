/**
 * The open position of one delivery day as an SVG step chart: one line per control area, one
 * step per quarter-hour, MW on the y axis (consumption positive), local time on the x axis.
 * Colours come from CSS classes (`s0`…`s5`), so the chart follows the light/dark theme and
 * needs no `style` attribute.
 *
 * The chart is drawn at the width of its box (measured with a `ResizeObserver`), so its labels
 * keep their CSS size (12 px) on a phone instead of being shrunk with the drawing. A tap, a click
 * or a drag along the chart, the previous / next buttons ({@link QuarterHourSteps}), or the arrow
 * keys on the focused chart (← → a quarter-hour, Page Up/Down an hour, Home/End), show that
 * quarter-hour's values in a visible readout ({@link ChartReadout}); hovering still shows them as
 * a title.
 *
 * With `tso`, each area's schedule the TSO has (the standing version's quantities,
 * docs/intraday.md) is drawn as a dashed line in the area's colour beside its open position, and
 * the readout gives both. With `frozenBefore` the quarter-hours frozen now (those starting before
 * now + the lead time, docs/intraday.md) are shaded, and with `nowMs` a "now" line marks the
 * present when it falls on the day.
 * @module
 */
import { useMemo } from "preact/hooks";
import { PLOT_X, useChartPlot } from "./chart_plot.ts";
import { areaTotals } from "../lib/pipeline/totals.ts";
import { browserLocale, energy, power, tickLabels } from "../lib/console/format.ts";
import type { OpenPosition } from "../lib/console/types.ts";
import { tsoName } from "../lib/fahrplan/tso_names.ts";
import { ChartReadout } from "./ChartReadout.tsx";
import { QuarterHourSteps } from "./QuarterHourSteps.tsx";

/** Margins in px: the top one holds the axis title above the highest value label. */
const M = { top: 28, bottom: 26, ...PLOT_X };

/** Round tick values covering [lo, hi] (about `count` of them). */
export function ticks(lo: number, hi: number, count = 5): number[] {
  if (hi === lo) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step / 1e6; v += step) {
    out.push(Math.round(v * 1e6) / 1e6);
  }
  return out;
}

/**
 * Hours between time labels for a plot `plotWidth` px wide: every 3 h when a label gets at
 * least 44 px (a 12 px "00:00" is about 33 px), else every 6 h.
 */
export function labelEveryHours(plotWidth: number): 3 | 6 {
  return plotWidth / 8 >= 44 ? 3 : 6;
}

export { quarterHourAt, stepFor } from "./chart_plot.ts";

/** Props of {@link PositionChart}. */
export interface PositionChartProps {
  position: OpenPosition;
  /** Fixed drawing width in px (tests); without it, the width of the chart's box. */
  width?: number;
  /**
   * Per control area, the schedule the TSO has: MW per quarter-hour of the standing version
   * (`standing_quantities` of `…/versions`), with its version; areas without one are left out.
   */
  tso?: Record<string, { version: number; mw: number[] }>;
  /** ISO-8601 UTC start of the first quarter-hour open now: the ones before it are shaded. */
  frozenBefore?: string;
  /** The clock (ms since the epoch): a "now" line where it falls on the day. */
  nowMs?: number;
  /** Locale of the numbers (default: the browser's). */
  locale?: string;
}

/** Quarter-hours of `starts` (ISO-8601 UTC) that begin before `before`; 0 without it. */
export function frozenQuarterHours(starts: readonly string[], before?: string): number {
  if (!before) return 0;
  const limit = Date.parse(before);
  return starts.filter((s) => Date.parse(s) < limit).length;
}

/**
 * Where `nowMs` falls on the day as a fractional quarter-hour index (2.5: half-way through the
 * third), or `null` when it is before the first or after the last quarter-hour.
 */
export function nowIndex(starts: readonly string[], nowMs?: number): number | null {
  if (nowMs === undefined || !starts.length) return null;
  const ms = starts.map((s) => Date.parse(s));
  const end = ms[ms.length - 1] + 15 * 60_000;
  if (nowMs < ms[0] || nowMs >= end) return null;
  let i = 0;
  while (i + 1 < ms.length && ms[i + 1] <= nowMs) i++;
  return i + (nowMs - ms[i]) / (15 * 60_000);
}

/** The chart; its `<title>` names it for assistive technology. */
export function PositionChart(
  { position, width, tso = {}, frozenBefore, nowMs, locale = browserLocale() }: PositionChartProps,
) {
  const { plot, W, at, setAt, handlers } = useChartPlot(width, [position.delivery_day]);
  const H = W < 600 ? 220 : 240;
  const qh = position.quarter_hours;
  const areas = Object.keys(position.areas).sort();
  const n = Math.max(qh.length, 1);
  const tsoAreas = areas.filter((a) => tso[a]?.mw.length);
  const all = [...areas.flatMap((a) => position.areas[a]), ...tsoAreas.flatMap((a) => tso[a].mw)]
    .filter(Number.isFinite);
  const lo0 = Math.min(0, ...all);
  const hi0 = Math.max(0, ...all);
  const pad = (hi0 - lo0) * 0.05 || 1;
  const ys = ticks(lo0 - (lo0 < 0 ? pad : 0), hi0 + pad, H < 240 ? 4 : 5);
  const yLabels = tickLabels(ys, locale);
  const lo = Math.min(lo0, ys[0]);
  const hi = Math.max(hi0, ys[ys.length - 1]);
  // Never negative, also while the box is narrower than the margins (a `<rect>` refuses it).
  const iw = Math.max(W - M.left - M.right, 1);
  const ih = H - M.top - M.bottom;
  const x = (i: number) => M.left + (i * iw) / n;
  const y = (v: number) => M.top + ((hi - v) / (hi - lo || 1)) * ih;
  const f = (v: number) => v.toFixed(1);
  const line = (values: number[]) =>
    values.map((v, i) => `${f(x(i))},${f(y(v))} ${f(x(i + 1))},${f(y(v))}`).join(" ");
  const every = labelEveryHours(iw);
  const labels = qh.flatMap((q, i) => {
    const m = /^(\d{2}):00$/.exec(q.local);
    return m && Number(m[1]) % every === 0 ? [{ i, text: q.local }] : [];
  });
  const titleId = `chart-${position.delivery_day}`;
  const readoutId = `readout-${position.delivery_day}`;
  const valueAt = (a: string, i: number) => position.areas[a][i] ?? NaN;
  const starts = qh.map((q) => q.start);
  const frozen = frozenQuarterHours(starts, frozenBefore);
  const nowAt = nowIndex(starts, nowMs);

  // The hover targets change with the data and the width, not with the quarter-hour read out.
  const hits = useMemo(
    () =>
      qh.map((q, i) => (
        <rect key={q.start} class="hit" x={x(i)} y={M.top} width={iw / n} height={ih}>
          <title>
            {`${q.local} · ` + areas.map((a) =>
              `${a}: ${power(valueAt(a, i), locale)}`
            ).join(" · ")}
          </title>
        </rect>
      )),
    [position, locale, W, H],
  );
  const readout = at === null || !qh[at] ? null : {
    from: qh[at].local,
    to: qh[at + 1]?.local ?? qh[0]?.local ?? "",
    values: areas.map((a, k) => ({
      area: a,
      mw: valueAt(a, at),
      series: k,
      ...(tso[a] ? { tsoMw: tso[a].mw[at] ?? NaN } : {}),
    })),
  };
  return (
    <figure class="chart">
      <div
        ref={plot}
        class="chart-plot"
        tabIndex={0}
        role="group"
        aria-label={`Open position ${position.delivery_day}: tap, or use the arrow keys, to read a quarter-hour`}
        aria-describedby={readoutId}
        {...handlers(qh.length)}
      >
        <svg
          viewBox={`0 0 ${W} ${H}`}
          width={W}
          height={H}
          role="img"
          aria-labelledby={titleId}
          class="chart-svg"
        >
          <title id={titleId}>
            Open position {position.delivery_day} (aggregate version{" "}
            {position.version}), MW per quarter-hour and control area
            {tsoAreas.length ? "; dashed: the schedule the TSO has" : ""}
          </title>
          <text class="axis-label" x={4} y={13} text-anchor="start">
            MW (consumption +, generation −)
          </text>
          {frozen > 0 && (
            <rect class="frozen" x={x(0)} y={M.top} width={x(frozen) - x(0)} height={ih}>
              <title>
                {`frozen: the quarter-hours before ${
                  qh[frozen]?.local ?? "the day's end"
                } (now + lead time)`}
              </title>
            </rect>
          )}
          {ys.map((v, k) => (
            <g key={`y${v}`} class={v === 0 ? "grid zero" : "grid"}>
              <line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} />
              <text x={M.left - 6} y={y(v) + 4} text-anchor="end">{yLabels[k]}</text>
            </g>
          ))}
          {labels.map(({ i, text }) => (
            <g key={`x${i}`} class="grid xgrid">
              <line x1={x(i)} x2={x(i)} y1={M.top} y2={H - M.bottom} />
              <text x={x(i)} y={H - 8} text-anchor="middle">{text}</text>
            </g>
          ))}
          {areas.map((a, k) => (
            <polyline key={a} class={`series s${k % 6}`} points={line(position.areas[a])} />
          ))}
          {areas.map((a, k) =>
            tso[a]?.mw.length
              ? (
                <polyline
                  key={`tso-${a}`}
                  class={`series tso-series s${k % 6}`}
                  data-area={a}
                  points={line(tso[a].mw)}
                />
              )
              : null
          )}
          {nowAt !== null && (
            <g class="now-line" aria-hidden="true">
              <line x1={x(nowAt)} x2={x(nowAt)} y1={M.top} y2={H - M.bottom} />
              <text x={x(nowAt)} y={M.top - 4} text-anchor="middle">now</text>
            </g>
          )}
          {at !== null && qh[at] && (
            <g class="cursor" aria-hidden="true">
              <rect x={x(at)} y={M.top} width={Math.max(iw / n, 2)} height={ih} />
              {areas.map((a, k) =>
                Number.isFinite(valueAt(a, at))
                  ? (
                    <circle
                      key={a}
                      class={`mark s${k % 6}`}
                      cx={x(at + 0.5)}
                      cy={y(valueAt(a, at))}
                      r={4}
                    />
                  )
                  : null
              )}
            </g>
          )}
          {hits}
        </svg>
      </div>
      <QuarterHourSteps
        at={at}
        count={qh.length}
        setAt={setAt}
        what={`the open position ${position.delivery_day}`}
        readout={readoutId}
      />
      <ChartReadout at={readout} id={readoutId} locale={locale} />
      <figcaption>
        <ul class="legend">
          {areas.map((a, k) => {
            const v = position.areas[a];
            const t = areaTotals(v);
            const name = tsoName(a);
            return (
              <li key={a}>
                <span class={`swatch s${k % 6}`} aria-hidden="true" />
                <span class="mono">{a}</span>
                {name && <span class="tso-name">{name}</span>}{" "}
                <span class="totals">
                  purchase {energy(t.purchase_mwh, locale)} · sale {energy(t.sale_mwh, locale)}{" "}
                  · peak {power(t.peak_mw, locale)}
                </span>{" "}
                <span class="muted">
                  min {power(Math.min(...v), locale)} · max {power(Math.max(...v), locale)}
                </span>
                {tso[a] && (
                  <span class="tso-legend">
                    {" "}
                    <span class={`swatch swatch-dashed s${k % 6}`} aria-hidden="true" />
                    the TSO has schedule v{tso[a].version}
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      </figcaption>
    </figure>
  );
}
