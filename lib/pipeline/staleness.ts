/**
 * Whether a recorded step of a delivery day is stale, and why (docs/pipeline.md, "Day state and
 * staleness"): the decision alone, on a day state already read. The overview of
 * `GET /v1/console/delivery-days` (`overview` in `day_state.ts`) shows it per step.
 * @module
 */
import type { InputChange, StepRecord } from "../wire/delivery_days.ts";
import type { StepName } from "./step_table.ts";

/**
 * What the decision reads of a day state (`DayState` of `./day_state.ts`, which imports this
 * module: the type is spelled here so the two do not import each other).
 */
export interface StalenessInput {
  input_version: number;
  last_input: InputChange | null;
  steps: Partial<Record<StepName, StepRecord>>;
}

/** A recorded step's staleness as the overview shows it. */
export interface Staleness {
  /** True when the step's recorded version is behind the day's `input_version`. */
  stale: boolean;
  /**
   * What arrived, when (Europe/Berlin) and the two versions, e.g. `newer forecast for 12 market
   * locations at 10:41 (input version 8, this step has 7)`; `null` when not stale, or when the
   * day records no input change to name.
   */
  reason: string | null;
}

/**
 * The staleness of `step` on `state` (docs/pipeline.md, "Day state and staleness"): stale when the
 * version it recorded is behind the day's `input_version`; the reason names the day's last input
 * change (`last_input`).
 * @returns `null` when the step has no record (it never ran: neither stale nor current)
 */
export function staleness(state: StalenessInput, step: StepName): Staleness | null {
  const rec = state.steps[step];
  if (!rec) return null;
  const stale = rec.version < state.input_version;
  const li = state.last_input;
  return {
    stale,
    reason: stale && li
      ? `${whatArrived(li)} (input version ${state.input_version}, this step has ${rec.version})`
      : null,
  };
}

/** "newer forecast for 12 market locations at 10:41" and the like (time in Europe/Berlin). */
function whatArrived(li: InputChange): string {
  const n = `${li.market_locations} market location${li.market_locations === 1 ? "" : "s"}`;
  if (li.source === "master_data") {
    return `master data changed for ${n} at ${hhmm(li.at)} Berlin`;
  }
  if (li.source === "actuals" || li.source === "weather") {
    return `newer ${li.source} for the learned forecasts of ${n} at ${hhmm(li.at)} Berlin`;
  }
  return `newer ${li.source === "generated" ? "generated " : ""}forecast for ${n} at ${
    hhmm(li.at)
  } Berlin`;
}

/**
 * Berlin wall-clock times of the instants seen lately: the overview asks for the same few (each
 * day's last input) on every request, and a Temporal conversion with a time zone costs 6 µs and
 * more (under the mixed load of `bench/mixed.ts`, a quarter of the console overview's JavaScript
 * time).
 */
const HHMM_MEMO = new Map<string, string>();
const HHMM_MEMO_SIZE = 1024;

function hhmm(iso: string): string {
  const known = HHMM_MEMO.get(iso);
  if (known !== undefined) return known;
  const out = Temporal.Instant.from(iso).toZonedDateTimeISO("Europe/Berlin").toPlainTime()
    .toString().slice(0, 5);
  if (HHMM_MEMO.size >= HHMM_MEMO_SIZE) HHMM_MEMO.clear();
  HHMM_MEMO.set(iso, out);
  return out;
}
