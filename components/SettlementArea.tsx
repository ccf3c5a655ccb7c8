/**
 * One control area of a day after delivery (docs/console_after_delivery.md): its heading, its
 * chart ({@link SettlementChart}) and what it says besides ({@link SettlementSummary}), sharing
 * the quarter-hour read out, so a row of the costliest quarter-hours shows its quarter-hour in the
 * chart (and brings the chart into view when it is scrolled away).
 * @module
 */
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import type { AreaSettlement } from "../lib/wire/settlement.ts";
import { areaName, type TotalsFormat } from "../lib/console/settlement_texts.ts";
import { SettlementChart } from "./SettlementChart.tsx";
import { SettlementSummary } from "./SettlementSummary.tsx";

/** Props of {@link SettlementArea}. */
export interface SettlementAreaProps {
  area: AreaSettlement;
  quarterHours: readonly string[];
  day: string;
  locale: string;
  nowMs: number;
  /** Unique per view (the same day can be open twice), for the heading's id. */
  uid: string;
  /** Whether the area's own totals sentence is said (not when it is the day's only area). */
  totals: boolean;
  format: TotalsFormat;
  /** Fixed chart width (tests). */
  width?: number;
  /** Shown after the summary (the area's post-delivery correction). */
  children?: ComponentChildren;
}

/** The area's section. */
export function SettlementArea(p: SettlementAreaProps) {
  const [at, setAt] = useState<number | null>(null);
  const box = useRef<HTMLElement>(null);
  const a = p.area;
  const select = (i: number) => {
    setAt(i);
    const chart = box.current?.querySelector(".settlement-chart");
    const r = chart?.getBoundingClientRect();
    if (chart && r && (r.top < 0 || r.bottom > globalThis.innerHeight)) {
      const still = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
      chart.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
    }
  };
  return (
    <section
      ref={box}
      class="settlement-area"
      aria-labelledby={`settle-h-${p.uid}-${a.control_area}`}
    >
      <h4 class="settlement-area-h" id={`settle-h-${p.uid}-${a.control_area}`}>
        {areaName(a)} <span class="mono muted">{a.control_area}</span>
      </h4>
      <SettlementChart
        area={a}
        quarterHours={p.quarterHours}
        day={p.day}
        locale={p.locale}
        width={p.width}
        selection={{ at, setAt }}
      />
      <SettlementSummary
        area={a}
        day={p.day}
        locale={p.locale}
        nowMs={p.nowMs}
        totals={p.totals}
        format={p.format}
        quarterHours={p.quarterHours}
        selected={at}
        onSelect={select}
      />
      {p.children}
    </section>
  );
}
