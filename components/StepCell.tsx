/**
 * One pipeline step of a delivery day in the overview: version, time and caller, and a stale
 * marker with its reason when newer input arrived after the step (docs/pipeline.md, "Day state and staleness").
 * @module
 */
import type { Step } from "../lib/console/types.ts";
import { Badge } from "./Badge.tsx";
import { LocalTime } from "./LocalTime.tsx";

/** Props of {@link StepCell}. */
export interface StepCellProps {
  step: Step | null;
  /** Time zone (default: the browser's); for tests. */
  timeZone?: string;
}

/** The content of one step cell; `—` when the step has not run. */
export function StepCell({ step, timeZone }: StepCellProps) {
  if (!step) return <span class="muted" title="not run yet">—</span>;
  return (
    <span class={step.stale ? "step step-stale" : "step step-ok"}>
      <span class="step-line">
        <span class="step-mark" aria-hidden="true">{step.stale ? "!" : "✓"}</span>
        <span class="step-ver" title={`consumed input version ${step.version}`}>
          v{step.version}
        </span>{" "}
        <LocalTime iso={step.at} timeZone={timeZone} />
      </span>
      <span class="step-line step-by">{step.by}</span>
      {step.stale && (
        <span class="step-line">
          <Badge tone="warn">stale</Badge>{" "}
          <span class="stale-reason">{step.stale_reason ?? "newer input arrived"}</span>
        </span>
      )}
    </span>
  );
}
