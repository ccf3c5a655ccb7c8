/**
 * The backtest's chart (docs/forecasting.md, "The backtest"): actual load, the model's forecast and
 * the reference forecast per quarter-hour as one self-contained SVG (no script, no font or style
 * from another host), a grid line at each Berlin midnight and the MW scale on the left.
 * @module
 */
import type { BacktestRow } from "./replay.ts";

const W = 1600, H = 420, L = 56, R = 12, T = 28, B = 36;

/** The series drawn, with their colours (readable on white, distinct for colour-blind eyes). */
const SERIES = [
  { key: "actual", label: "actual", color: "#222222" },
  { key: "forecast", label: "forecast (learned)", color: "#0072b2" },
  { key: "reference", label: "reference", color: "#e69f00" },
] as const;

/** The SVG text of the chart; `title` is shown on top (escaped). */
export function chartSvg(rows: readonly BacktestRow[], title: string): string {
  const values = rows.flatMap((r) => [r.actual, r.forecast, r.reference]).filter(Number.isFinite);
  const lo = Math.floor(Math.min(0, ...values) / 5) * 5,
    hi = Math.ceil(Math.max(1, ...values) / 5) * 5;
  const x = (i: number) => L + (i / Math.max(1, rows.length - 1)) * (W - L - R);
  const y = (v: number) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const parts: string[] = [];
  for (let v = lo; v <= hi; v += 5) {
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="${
        v === 0 ? "#999" : "#e5e5e5"
      }"/>`,
      `<text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
    );
  }
  rows.forEach((r, i) => {
    if (i > 0 && rows[i - 1].day === r.day) return;
    parts.push(`<line x1="${x(i)}" x2="${x(i)}" y1="${T}" y2="${H - B}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${x(i) + 2}" y="${H - B + 14}">${r.day.slice(5)}</text>`);
  });
  SERIES.forEach((s, n) => {
    let d = "";
    let pen = false;
    rows.forEach((r, i) => {
      const v = r[s.key];
      if (!Number.isFinite(v)) return void (pen = false);
      d += `${pen ? "L" : "M"}${x(i).toFixed(1)} ${y(v).toFixed(1)}`;
      pen = true;
    });
    if (d) parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.2"/>`);
    parts.push(
      `<rect x="${L + 10 + n * 190}" y="${H - 14}" width="14" height="4" fill="${s.color}"/>`,
      `<text x="${L + 28 + n * 190}" y="${H - 9}">${s.label}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
    `font-family="sans-serif" font-size="11" role="img" aria-label="${escape(title)}">` +
    `<rect width="${W}" height="${H}" fill="#fff"/>` +
    `<text x="${L}" y="18" font-size="13">${escape(title)}</text>` +
    `<text x="12" y="${T + 10}">MW</text>${parts.join("")}</svg>\n`;
}

const escape = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
