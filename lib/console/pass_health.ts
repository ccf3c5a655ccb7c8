/**
 * What the status pill says about the orchestrator's passes (docs/architecture.md, "Console"):
 * red when the last three passes failed, or while running no pass has finished for three
 * minutes; amber when the last pass had a failed step; green otherwise while running. Pure, so
 * tests give it the status and the time.
 * @module
 */
import type { OrchestratorStatus } from "../wire/orchestrator.ts";

/** Tone of the pill: `running` (green), `amber`, `red`, `stopped`. */
export type PillTone = "running" | "amber" | "red" | "stopped";

/** Minutes without a finished pass after which a running orchestrator is red. */
const STALLED_MINUTES = 3;

/**
 * The pill's tone and its words.
 * @param nowMs the browser's clock, ms since the epoch
 */
export function passHealth(o: OrchestratorStatus, nowMs: number): { tone: PillTone; text: string } {
  const last = o.last_pass;
  if (o.failed_passes_in_a_row >= 3) {
    return {
      tone: "red",
      text: `the last ${o.failed_passes_in_a_row} passes failed`,
    };
  }
  if (o.state === "running") {
    const since = last?.finished_at ?? o.changed_at;
    const quiet = since ? Math.floor((nowMs - Date.parse(since)) / 60_000) : 0;
    if (quiet >= STALLED_MINUTES) {
      return {
        tone: "red",
        text: last
          ? `no pass has finished for ${quiet} min`
          : `no pass has finished since the start ${quiet} min ago`,
      };
    }
  }
  if (last && last.steps_failed > 0) {
    return {
      tone: "amber",
      text: `the last pass had ${last.steps_failed} failed step${
        last.steps_failed === 1 ? "" : "s"
      }`,
    };
  }
  return o.state === "running"
    ? { tone: "running", text: last ? `last pass ${last.outcome.replaceAll("_", " ")}` : "" }
    : { tone: "stopped", text: "" };
}
