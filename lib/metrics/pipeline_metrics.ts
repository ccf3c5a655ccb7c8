/**
 * Pipeline and event metrics (docs/metrics.md, "Pipeline"), counted from what this process does:
 * every event it stores (events appended; a step's success event or its `orchestration_error`
 * gives the step's runs and failures, docs/pipeline.md, "Events") and every orchestrator pass it
 * finishes (duration and outcome). Counters are per process, as Prometheus expects; the pass
 * health shared by replicas is read at scrape time (`state_gauges.ts`).
 * @module
 */
import { STEP_TABLE } from "../pipeline/step_table.ts";
import type { EventRecord } from "../store/events.ts";
import type { LastPass } from "../wire/orchestrator.ts";
import { Counter, Histogram, METRIC_PREFIX, type Registry } from "./registry.ts";

/** Upper bounds of the pass-duration buckets, seconds (10 ms … 5 min). */
export const PASS_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const STEP_OF_EVENT = new Map<string, string>(STEP_TABLE.map((r) => [r.event, r.step]));
const STEP_NAMES = new Set<unknown>(STEP_TABLE.map((r) => r.step));

/** The counters fed by the event log and the orchestrator of one app. */
export class PipelineMetrics {
  #events: Counter<"kind" | "level">;
  #runs: Counter<"step">;
  #failures: Counter<"step">;
  #passes: Counter<"outcome">;
  #passDuration: Histogram<"outcome">;

  constructor(registry: Registry) {
    const r = [registry];
    this.#events = new Counter({
      name: `${METRIC_PREFIX}events_appended_total`,
      help: "Events this process stored in the event history, by kind and level.",
      labelNames: ["kind", "level"],
      registers: r,
    });
    this.#runs = new Counter({
      name: `${METRIC_PREFIX}pipeline_step_runs_total`,
      help: "Pipeline step runs (succeeded or failed) in this process, by step.",
      labelNames: ["step"],
      registers: r,
    });
    this.#failures = new Counter({
      name: `${METRIC_PREFIX}pipeline_step_failures_total`,
      help:
        "Pipeline step runs that ended in an orchestration_error event (failure or refusal), by step.",
      labelNames: ["step"],
      registers: r,
    });
    this.#passes = new Counter({
      name: `${METRIC_PREFIX}orchestrator_passes_total`,
      help: "Orchestrator passes finished in this process, by outcome.",
      labelNames: ["outcome"],
      registers: r,
    });
    this.#passDuration = new Histogram({
      name: `${METRIC_PREFIX}orchestrator_pass_duration_seconds`,
      help: "Duration of the orchestrator passes finished in this process, by outcome, seconds.",
      labelNames: ["outcome"],
      buckets: PASS_DURATION_BUCKETS,
      registers: r,
    });
    for (const row of STEP_TABLE) {
      this.#runs.inc({ step: row.step }, 0);
      this.#failures.inc({ step: row.step }, 0);
    }
  }

  /** Counts records the event log stored (its `onStored` callback). */
  onEvents(records: readonly EventRecord[]): void {
    for (const e of records) {
      this.#events.inc({ kind: e.kind, level: e.level });
      const step = e.kind === "orchestration_error" ? e.data?.step : STEP_OF_EVENT.get(e.kind);
      if (typeof step !== "string" || !STEP_NAMES.has(step)) continue;
      this.#runs.inc({ step });
      if (e.kind === "orchestration_error") this.#failures.inc({ step });
    }
  }

  /** Counts a finished orchestrator pass (the pass log's `onRecord` callback). */
  onPass(pass: LastPass): void {
    this.#passes.inc({ outcome: pass.outcome });
    const seconds = (Date.parse(pass.finished_at) - Date.parse(pass.started_at)) / 1000;
    if (Number.isFinite(seconds) && seconds >= 0) {
      this.#passDuration.observe({ outcome: pass.outcome }, seconds);
    }
  }
}
