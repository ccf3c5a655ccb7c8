/**
 * The open position of one delivery day as an SVG step chart: one line per control area, one
 * step per quarter-hour, MW on the y axis (consumption positive), local time on the x axis.
 * Colours come from CSS classes (`s0`…`s5`), so the chart follows the light/dark theme and
 * needs no `style` attribute. Hovering a quarter-hour shows every area's value.
 * @module
 */
import { areaTotals } from "../lib/pipeline/totals.ts";
import { formatMw, formatMwh } from "../lib/console/format.ts";
import type { OpenPosition } from "../lib/console/types.ts";

const W = 960;
const H = 240;
const M = { top: 10, right: 12, bottom: 24, left: 52 };

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

/** The chart; `title` names it for assistive technology. */
export function PositionChart({ position }: { position: OpenPosition }) {
  const qh = position.quarter_hours;
  const areas = Object.keys(position.areas).sort();
  const n = Math.max(qh.length, 1);
  const all = areas.flatMap((a) => position.areas[a]).filter(Number.isFinite);
  const lo0 = Math.min(0, ...all);
  const hi0 = Math.max(0, ...all);
  const pad = (hi0 - lo0) * 0.05 || 1;
  const ys = ticks(lo0 - (lo0 < 0 ? pad : 0), hi0 + pad);
  const lo = Math.min(lo0, ys[0]);
  const hi = Math.max(hi0, ys[ys.length - 1]);
  const iw = W - M.left - M.right;
  const ih = H - M.top - M.bottom;
  const x = (i: number) => M.left + (i * iw) / n;
  const y = (v: number) => M.top + ((hi - v) / (hi - lo || 1)) * ih;
  const f = (v: number) => v.toFixed(1);
  const line = (values: number[]) =>
    values.map((v, i) => `${f(x(i))},${f(y(v))} ${f(x(i + 1))},${f(y(v))}`).join(" ");
  const labels = qh.flatMap((q, i) =>
    /^(00|03|06|09|12|15|18|21):00$/.test(q.local) ? [{ i, text: q.local }] : []
  );
  const titleId = `chart-${position.delivery_day}`;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={titleId}
        class="chart-svg"
      >
        <title id={titleId}>
          Open position {position.delivery_day} (version{" "}
          {position.version}), MW per quarter-hour and control area
        </title>
        {ys.map((v) => (
          <g key={`y${v}`} class={v === 0 ? "grid zero" : "grid"}>
            <line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} />
            <text x={M.left - 6} y={y(v) + 4} text-anchor="end">{formatMw(v)}</text>
          </g>
        ))}
        {labels.map(({ i, text }) => (
          <g key={`x${i}`} class="grid xgrid">
            <line x1={x(i)} x2={x(i)} y1={M.top} y2={H - M.bottom} />
            <text x={x(i)} y={H - 6} text-anchor="middle">{text}</text>
          </g>
        ))}
        <text class="axis-label" x={4} y={M.top + 2} text-anchor="start">
          MW (consumption +, generation −)
        </text>
        {areas.map((a, k) => (
          <polyline key={a} class={`series s${k % 6}`} points={line(position.areas[a])} />
        ))}
        {qh.map((q, i) => (
          <rect key={q.start} class="hit" x={x(i)} y={M.top} width={iw / n} height={ih}>
            <title>
              {`${q.local} · ` +
                areas.map((a) =>
                  `${a}: ${formatMw(position.areas[a][i] ?? NaN)} MW`
                ).join(" · ")}
            </title>
          </rect>
        ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {areas.map((a, k) => {
            const v = position.areas[a];
            const t = areaTotals(v);
            return (
              <li key={a}>
                <span class={`swatch s${k % 6}`} aria-hidden="true" />
                <span class="mono">{a}</span>{" "}
                <span class="totals">
                  purchase {formatMwh(t.purchase_mwh)} MWh · sale {formatMwh(t.sale_mwh)} MWh · peak
                  {" "}
                  {formatMw(t.peak_mw)} MW
                </span>{" "}
                <span class="muted">
                  min {formatMw(Math.min(...v))} · max {formatMw(Math.max(...v))} MW
                </span>
              </li>
            );
          })}
        </ul>
      </figcaption>
    </figure>
  );
}
