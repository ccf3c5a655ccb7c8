/**
 * One pipeline step of a delivery day in the overview: version, time and caller, and a stale
 * marker with its reason when newer input arrived after the step (docs/pipeline.md, "Day state and staleness").
 * @module
 */
import type { ComponentChildren } from "preact";
import { formatBerlinHm } from "../lib/console/format.ts";
import type { Step, StepFailure } from "../lib/console/types.ts";
import { Badge } from "./Badge.tsx";
import { LocalTime } from "./LocalTime.tsx";

/** Props of {@link StepCell}. */
export interface StepCellProps {
  step: Step | null;
  /** The step's last failed attempt since its last success; shown above anything else. */
  failure?: StepFailure | null;
  /** Time zone (default: the browser's); for tests. */
  timeZone?: string;
  /**
   * What the step's version counts, shown before it ("aggregate v2"), so it is not mistaken for
   * a schedule document's message version ("schedule v1"); default "input".
   */
  versionOf?: "input" | "aggregate";
  /** What the TSOs refused of the step's result, in words: shown in red above the step. */
  problems?: readonly string[];
  /** Shown for a step that has not run (default `—`), e.g. the deadline of a day with nothing sent. */
  empty?: ComponentChildren;
}

/**
 * A failed attempt in words, market time: "publish failed 10:41 Berlin: sFTP … refused the
 * connection · 12 attempts · next 10:42" (docs/architecture.md, "Console").
 */
export function failureText(f: StepFailure): string {
  const [what, ...rest] = f.message.split(" failed: ");
  const why = rest.length ? rest.join(" failed: ") : f.message;
  const next = f.next_attempt_at ? ` · next ${formatBerlinHm(f.next_attempt_at)}` : "";
  return `${what} failed ${formatBerlinHm(f.at)} Berlin: ${why} · ${f.attempts} attempt${
    f.attempts === 1 ? "" : "s"
  }${next}`;
}

/** The content of one step cell: a failure first, then the step (`—` when it has not run). */
export function StepCell(
  { step, failure, timeZone, versionOf = "input", problems, empty }: StepCellProps,
) {
  const failed = failure
    ? (
      <span class="step-line step-failure" role="alert">
        <Badge tone="error">failed</Badge> <span class="failure-text">{failureText(failure)}</span>
      </span>
    )
    : null;
  const refused = problems?.length
    ? problems.map((text) => (
      <span key={text} class="step-line step-failure step-tso-problem">
        <Badge tone="error">TSO</Badge> <span class="failure-text">{text}</span>
      </span>
    ))
    : null;
  if (!step) {
    if (failed) return <span class="step step-failed">{failed}</span>;
    if (empty) return <>{empty}</>;
    return <span class="muted" title="not run yet">—</span>;
  }
  const bad = failed || refused;
  return (
    <span class={bad ? "step step-failed" : step.stale ? "step step-stale" : "step step-ok"}>
      {failed}
      {refused}
      <span class="step-line">
        <span class="step-mark" aria-hidden="true">{refused ? "✕" : step.stale ? "!" : "✓"}</span>
        <LocalTime iso={step.at} timeZone={timeZone} />
      </span>
      <span class="step-line step-by">
        <span
          class="step-ver"
          title={versionOf === "aggregate"
            ? `the aggregate of input version ${step.version} (not a schedule's message version)`
            : `consumed input version ${step.version}`}
        >
          {versionOf} v{step.version}
        </span>{" "}
        <span class="step-who">· {step.by}</span>
      </span>
      {step.stale && (
        <span class="step-line">
          <Badge tone="warn">stale</Badge>{" "}
          <span class="stale-reason">{step.stale_reason ?? "newer input arrived"}</span>
        </span>
      )}
    </span>
  );
}
