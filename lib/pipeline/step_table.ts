/**
 * The one step table (docs/pipeline.md): each pipeline step's name, the route that runs it
 * (`POST /v1/delivery-days/{day}/<route>`), the event it records, the field of the day state and
 * overview that shows it, its label in the console, and what running it is called in event
 * sentences (`doing`: "Publishing the open position of 2026-11-25 failed: …" / "… works again").
 * Routes, the pipeline, the orchestrator and the console all read it from here. Plain constants,
 * so the browser bundle may import it.
 * @module
 */

/** The steps of a delivery day, in pipeline order. */
export const STEP_TABLE = [
  {
    step: "forecast",
    route: "forecast",
    event: "forecasts_generated",
    field: "forecast",
    label: "Forecast",
    doing: "Generating the forecasts",
  },
  {
    step: "aggregate",
    route: "aggregate",
    event: "positions_aggregated",
    field: "aggregated",
    label: "Aggregate",
    doing: "Aggregating the open position",
  },
  {
    step: "publish",
    route: "publish",
    event: "csv_published",
    field: "published",
    label: "Publish",
    doing: "Publishing the open position",
  },
  {
    step: "submit",
    route: "submit",
    event: "schedules_submitted",
    field: "submitted",
    label: "Submit",
    doing: "Submitting the schedules",
  },
] as const;

/** A step that can be run by name. */
export type RunnableStep = typeof STEP_TABLE[number]["step"];
/** The field of the day state (and overview) that records a step. */
export type StepName = typeof STEP_TABLE[number]["field"];

/** Day-state fields in pipeline order. */
export const STEPS: readonly StepName[] = STEP_TABLE.map((s) => s.field);

/** The table row of `step`. */
export function stepRow(step: RunnableStep): typeof STEP_TABLE[number] {
  return STEP_TABLE.find((s) => s.step === step)!;
}
