/**
 * The previous / next quarter-hour buttons under a chart (docs/console_after_delivery.md): on a
 * phone a quarter-hour is about 3 px wide, so besides a tap and a drag the readout moves by one
 * quarter-hour per press, with a finger-sized target; the keyboard's ← → do the same on the
 * focused chart. Before anything is read out, "next" shows the first quarter-hour and "previous"
 * the last. The buttons keep the focus; the readout beside them is a live region.
 * @module
 */
import { stepFor } from "./chart_plot.ts";

/** Props of {@link QuarterHourSteps}. */
export interface QuarterHourStepsProps {
  /** The quarter-hour read out, `null` for none. */
  at: number | null;
  /** Quarter-hours of the day (92, 96 or 100). */
  count: number;
  setAt: (at: number) => void;
  /** What the chart shows, for the buttons' names ("the open position 2026-11-25"). */
  what: string;
  /** Id of the readout the buttons change. */
  readout: string;
}

/** The two buttons. */
export function QuarterHourSteps({ at, count, setAt, what, readout }: QuarterHourStepsProps) {
  if (!count) return null;
  const go = (key: "ArrowLeft" | "ArrowRight") => {
    const next = stepFor(key, at, count);
    if (next !== null) setAt(next);
  };
  return (
    <div class="qh-steps">
      <span class="muted" aria-hidden="true">quarter-hour</span>
      <button
        type="button"
        class="btn btn-small"
        aria-label={`Previous quarter-hour of ${what}`}
        aria-controls={readout}
        disabled={at === 0}
        onClick={() => go("ArrowLeft")}
      >
        ‹ previous
      </button>
      <button
        type="button"
        class="btn btn-small"
        aria-label={`Next quarter-hour of ${what}`}
        aria-controls={readout}
        disabled={at === count - 1}
        onClick={() => go("ArrowRight")}
      >
        next ›
      </button>
    </div>
  );
}
