/**
 * What the console's quarter-hour charts share (components/PositionChart.tsx, the open position;
 * components/SettlementChart.tsx, after delivery; docs/console.md): the drawing's width (the
 * chart box, measured, or a fixed one for tests), the horizontal margins, the quarter-hour under
 * the pointer and the keys that move the readout (arrows, Page Up/Down by an hour, Home, End).
 * @module
 */
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** Width drawn before the box is measured (and on the server), px. */
const DEFAULT_WIDTH = 960;
/** Left (value labels) and right margins of the plot, px. */
export const PLOT_X = { left: 56, right: 12 } as const;

/** Index of the quarter-hour under `px` (px from the drawing's left edge), clamped. */
export function quarterHourAt(px: number, width: number, n: number): number {
  const iw = width - PLOT_X.left - PLOT_X.right;
  const i = Math.floor(((px - PLOT_X.left) / iw) * n);
  return Math.min(n - 1, Math.max(0, i));
}

/** The next index after a key press on the chart, or `null` for a key the chart ignores. */
export function stepFor(key: string, at: number | null, n: number): number | null {
  const cur = at ?? -1;
  const moves: Record<string, number> = {
    ArrowRight: cur < 0 ? 0 : cur + 1,
    ArrowLeft: cur < 0 ? n - 1 : cur - 1,
    PageDown: cur + 4,
    PageUp: cur < 0 ? 0 : cur - 4,
    Home: 0,
    End: n - 1,
  };
  const next = moves[key];
  return next === undefined ? null : Math.min(n - 1, Math.max(0, next));
}

/** A chart's plot box: its width, the quarter-hour read out and the handlers that pick it. */
export interface ChartPlot {
  plot: RefObject<HTMLDivElement | null>;
  /** Drawing width, px: `width` when given, else the box's measured width. */
  W: number;
  /** The quarter-hour read out (0-based), `null` for none. */
  at: number | null;
  setAt: (at: number | null) => void;
  /** Pointer and key handlers of the plot box for `count` quarter-hours. */
  handlers(count: number): {
    onClick: (e: MouseEvent) => void;
    onPointerDown: (e: PointerEvent) => void;
    onPointerMove: (e: PointerEvent) => void;
    onPointerUp: (e: PointerEvent) => void;
    onPointerCancel: (e: PointerEvent) => void;
    onKeyDown: (e: KeyboardEvent) => void;
  };
}

/** The quarter-hour read out, when its owner keeps it (e.g. a table that selects one). */
export interface ChartSelection {
  at: number | null;
  setAt: (at: number | null) => void;
}

/**
 * The plot box of a quarter-hour chart: measures its width (ResizeObserver) unless `width` is
 * fixed, and clears the readout when any of `reset` changes (another day or area). With
 * `selection` the quarter-hour read out is its owner's, else the chart's own.
 *
 * Picking (docs/console_after_delivery.md): a mouse picks by hovering and clicking; a finger or
 * a pen by a tap and by dragging along the chart (the pointer is captured while it is down, and
 * the plot box's `touch-action: pan-y` leaves vertical swipes to the page's scrolling); the keys
 * and the step buttons ({@link stepFor}, components/QuarterHourSteps.tsx) move it by one.
 */
export function useChartPlot(
  width: number | undefined,
  reset: readonly unknown[],
  selection?: ChartSelection,
): ChartPlot {
  const plot = useRef<HTMLDivElement>(null);
  const [measured, setMeasured] = useState(DEFAULT_WIDTH);
  const [own, setOwn] = useState<number | null>(null);
  const at = selection ? selection.at : own;
  const setAt = selection ? selection.setAt : setOwn;
  const dragging = useRef<number | null>(null);
  useEffect(() => {
    const el = plot.current;
    if (width || !el || typeof ResizeObserver === "undefined") return;
    const measure = () => {
      const w = Math.round(el.clientWidth);
      if (w > 0) setMeasured(w);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [width]);
  useEffect(() => setAt(null), reset);
  const W = width ?? measured;
  const handlers = (count: number) => {
    const pick = (e: { clientX: number; currentTarget: EventTarget | null }) => {
      const svg = (e.currentTarget as HTMLElement | null)?.querySelector("svg");
      if (!svg || !count) return;
      const r = svg.getBoundingClientRect();
      setAt(quarterHourAt((e.clientX - r.left) * (W / (r.width || W)), W, count));
    };
    const release = (e: PointerEvent) => {
      if (dragging.current === e.pointerId) dragging.current = null;
    };
    return {
      onClick: pick,
      onPointerDown: (e: PointerEvent) => {
        if (e.pointerType === "mouse") return;
        // A finger or pen held on the chart reads the quarter-hours it slides over.
        dragging.current = e.pointerId;
        (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
        pick(e);
      },
      onPointerMove: (e: PointerEvent) => {
        if (e.pointerType === "mouse" || dragging.current === e.pointerId) pick(e);
      },
      onPointerUp: release,
      onPointerCancel: release,
      onKeyDown: (e: KeyboardEvent) => {
        const next = stepFor(e.key, at, count);
        if (next === null || !count) return;
        e.preventDefault();
        setAt(next);
      },
    };
  };
  return { plot, W, at, setAt, handlers };
}
