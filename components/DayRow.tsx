/**
 * One delivery day in the overview table: the day (a button that selects it for the chart),
 * gate-closure countdown, input version and last input, the four steps, and the manual-step
 * buttons the service offers.
 * @module
 */
import type { RunnableStep } from "../lib/pipeline/step_table.ts";
import type { DayOverview } from "../lib/console/types.ts";
import type { AttentionItem } from "../lib/wire/attention.ts";
import { missingForecastsText } from "../lib/console/attention.ts";
import {
  berlinDate,
  dayDeadline,
  nothingSentText,
  relativeDay,
  tsoProblems,
  tsoProblemText,
  tsoSummary,
  weekdayDate,
} from "../lib/console/day_texts.ts";
import { Badge } from "./Badge.tsx";
import { ConfirmButton } from "./ConfirmButton.tsx";
import { Countdown } from "./Countdown.tsx";
import { LocalTime } from "./LocalTime.tsx";
import { StepCell } from "./StepCell.tsx";
import { tsoName } from "../lib/fahrplan/tso_names.ts";
import { lateFirstText, nextAfterDeadline, schedulesOpen } from "../lib/console/intraday_texts.ts";
import { useComputed } from "@preact/signals";
import { PhaseLine } from "./PhaseLine.tsx";

/**
 * The missing-forecast warning in words: "1 of 3 market locations without forecast" (the total
 * derived from the share of the day's market locations the warning carries).
 */
export function missingForecastText(w: { market_locations: number; share: number }): string {
  const total = w.share > 0 ? Math.round(w.market_locations / w.share) : 0;
  const of = total >= w.market_locations ? ` of ${total}` : "";
  return `${w.market_locations}${of} market location${
    total === 1 || (!of && w.market_locations === 1) ? "" : "s"
  } without forecast`;
}

/**
 * Their share of the day's expected energy, for a badge of its own beside the count: "75 % of
 * the energy", "≥ 75 % of the energy" when some of the missing locations' energy is unknown,
 * "energy share unknown" when none is known; `null` for a warning without energy figures
 * (docs/console_attention.md, "Missing forecasts by energy").
 */
export function missingEnergyText(
  w: { energy_share?: number | null; energy_unknown_locations?: number },
): string | null {
  if (w.energy_share === undefined) return null;
  if (w.energy_share === null) return "energy share unknown";
  const atLeast = (w.energy_unknown_locations ?? 0) > 0 ? "≥ " : "";
  return `${atLeast}${Math.round(w.energy_share * 1000) / 10} % of the energy`;
}
import { now } from "../lib/console/session.ts";
import { revealSection } from "../lib/console/focus.ts";

/** A manual pipeline step (`POST /v1/delivery-days/{day}/<step>`). */
export interface StepAction {
  step: RunnableStep;
  label: string;
  /** Ask before running (submission cannot be taken back after gate closure). */
  confirm?: boolean;
}

/** Props of {@link DayRow}. */
export interface DayRowProps {
  day: DayOverview;
  selected: boolean;
  onSelect: () => void;
  actions: StepAction[];
  busy: boolean;
  onAction: (a: StepAction) => void;
  /** Time zone (default: the browser's); for tests. */
  timeZone?: string;
  /**
   * The clock (ms since the epoch) for "today"/"tomorrow" and the deadline countdown; default
   * the session clock (the countdown ticks with it).
   */
  nowMs?: number;
  /**
   * Answer files about this day that could not be read and wait for the operator (the
   * `rejected_answer` items of the attention list): the row turns amber and says what to do.
   */
  unread?: readonly AttentionItem[];
}

/**
 * An answer about the day that could not be read, in words, with what to do: "answer file x.xml
 * could not be read — ask the TSO to resend it, or send a status request (schedules and versions)".
 */
export function unreadText(items: readonly AttentionItem[]): string | null {
  if (!items.length) return null;
  const files = items.map((i) => i.file ?? "?").join(", ");
  return `${items.length === 1 ? "answer file" : "answer files"} ${files} could not be read — ` +
    "ask the TSO to resend, or send a status request; the day's schedules may not stand as " +
    "confirmed";
}

/**
 * "nothing sent — TSO deadline 14:30 Berlin in 2 h 10 min"; after the deadline what comes next
 * ("missed: … · next: an intraday version for the quarter-hours from 19:15 Berlin"). Follows the
 * session clock, redrawn once a minute (when its text can change), not at every tick.
 */
function NothingSent({ day, nowMs }: { day: DayOverview; nowMs?: number }) {
  const minute = useComputed(() => Math.floor(now.value / 60_000) * 60_000);
  const t = nowMs ?? minute.value;
  const deadline = dayDeadline(day);
  const next = nextAfterDeadline(day, deadline.at, t);
  const text = `${nothingSentText(deadline, t)}${next ? ` · ${next}` : ""}`;
  return (
    <span class={`step step-none${text.startsWith("missed") ? " step-missed" : ""}`}>{text}</span>
  );
}

/**
 * The last input in words: "20 market locations · customer forecast by acme", "3 market locations
 * · master data by ops"; the caller is left out where it repeats the source (the demo's external
 * caller is named "customer": never "customer · customer").
 */
export function inputText(li: NonNullable<DayOverview["last_input"]>): string {
  const n = li.market_locations;
  const what = li.source === "master_data"
    ? "master data"
    : li.source === "customer"
    ? "customer forecast"
    : li.source === "actuals" || li.source === "weather"
    ? `${li.source} for learned forecasts`
    : "generated forecast";
  const by = li.by && li.by !== li.source ? ` by ${li.by}` : "";
  return `${n} market location${n === 1 ? "" : "s"} · ${what}${by}`;
}

/** A table row. */
export function DayRow(p: DayRowProps) {
  const d = p.day;
  const li = d.last_input;
  const tz = p.timeZone;
  const t = p.nowMs ?? now.peek();
  const rel = relativeDay(d.delivery_day, t);
  const summary = tsoSummary(d);
  const unread = unreadText(p.unread ?? []);
  // Green is only said while no answer about the day waits unread (docs/console.md, "Rows").
  const tso = summary && unread && summary.tone === "ok"
    ? { ...summary, tone: "warn" as const }
    : summary;
  const problems = tsoProblems(d).map(tsoProblemText);
  // A day from today on with nothing sent says by when (or that the deadline was missed).
  const nothingSent = !d.steps.submitted && d.delivery_day >= berlinDate(t)
    ? <NothingSent day={d} nowMs={p.nowMs} />
    : undefined;
  return (
    <tr
      class={p.selected ? "selected" : undefined}
      data-day={d.delivery_day}
      data-warning={d.warnings?.length ? "true" : undefined}
      data-tso={tso?.tone ?? (unread ? "warn" : undefined)}
      id={`day-${d.delivery_day}`}
    >
      <th scope="row">
        <button
          type="button"
          class="linklike mono"
          aria-pressed={p.selected ? "true" : "false"}
          title="show the open position of this day"
          onClick={p.onSelect}
        >
          {d.delivery_day}
        </button>{" "}
        {p.selected && (d.schedules ?? []).length > 0 && (
          <a
            class="to-schedules"
            href="#schedules"
            onClick={(e) => {
              // The next stop of the keyboard: the day's schedules and their version histories.
              e.preventDefault();
              revealSection("schedules");
            }}
          >
            schedules and versions ↓
          </a>
        )}{" "}
        <span class="day-name">
          {weekdayDate(d.delivery_day)}
          {rel && (
            <>
              {" · "}
              <strong>{rel}</strong>
            </>
          )}
        </span>
        {d.quarter_hours !== 96 && (
          <Badge tone="info" title="daylight-saving change">{d.quarter_hours} QH</Badge>
        )}
        {(d.warnings ?? []).map((w) => (
          <Badge
            key={w.code}
            tone="warn"
            title={missingForecastsText(w)}
          >
            {missingForecastText(w)}
          </Badge>
        ))}
        {(d.warnings ?? []).map((w) =>
          missingEnergyText(w) && (
            <Badge key={`${w.code}-energy`} tone="warn" title={missingForecastsText(w)}>
              {missingEnergyText(w)}
            </Badge>
          )
        )}
        {Object.values(d.failures ?? {}).some(Boolean) && <Badge tone="error">failing</Badge>}
        {tso && (
          <span
            class={`tso-summary tso-line tso-${tso.tone}`}
            title={d.schedules.map((x) =>
              `${x.control_area}${
                tsoName(x.control_area) ? ` ${tsoName(x.control_area)}` : ""
              }: ${x.tso_status} (schedule v${x.version})${
                x.reason_text ? ` — ${x.reason_text}` : ""
              }`
            ).join(" · ")}
          >
            {tso.text}
          </span>
        )}
        <PhaseLine day={d} class="phase-line tso-line" nowMs={p.nowMs} />
        {unread && <span class="tso-line tso-warn unread-answer" role="note">{unread}</span>}
        {lateFirstText(d, t) && <span class="tso-line late-first">{lateFirstText(d, t)}</span>}
      </th>
      <td data-label="Gate closure">
        <Countdown iso={d.gate_closure} timeZone={tz} />
      </td>
      <td data-label="Input">
        <span class="step-line">
          <span class="step-ver" title="input version of the day">input v{d.input_version}</span>
          {li && (
            <>
              {" "}
              <LocalTime iso={li.at} timeZone={tz} />
            </>
          )}
        </span>
        {li && (
          <span class="step-line sub">
            {inputText(li)}
          </span>
        )}
      </td>
      <td data-label="Forecast">
        <StepCell step={d.steps.forecast} failure={d.failures?.forecast} timeZone={tz} />
      </td>
      <td data-label="Aggregated">
        <StepCell
          step={d.steps.aggregated}
          failure={d.failures?.aggregated}
          timeZone={tz}
          versionOf="aggregate"
        />
      </td>
      <td data-label="Published">
        <StepCell
          step={d.steps.published}
          failure={d.failures?.published}
          timeZone={tz}
          versionOf="aggregate"
        />
      </td>
      <td data-label="Submitted">
        <StepCell
          step={d.steps.submitted}
          failure={d.failures?.submitted}
          timeZone={tz}
          versionOf="aggregate"
          problems={problems}
          empty={nothingSent}
        />
      </td>
      {p.actions.length > 0 && (
        <td class="actions" data-label="Manual steps">
          {p.actions.map((a) => {
            // Schedules go out while a quarter-hour is open (intraday); the service refuses the
            // market platform's submission after gate closure itself (docs/intraday.md).
            const closed = a.step === "submit" && !schedulesOpen(d, t);
            const name = `${a.label} ${d.delivery_day}`;
            return a.confirm
              ? (
                <ConfirmButton
                  key={a.step}
                  class="btn btn-small"
                  label={`${a.label}…`}
                  ariaLabel={name}
                  disabled={p.busy || closed}
                  question={`Submit the schedules for ${d.delivery_day} now?${
                    d.gate_closure_passed
                      ? " Gate closure has passed: only new intraday schedule versions go to the TSOs, nothing to the market platform."
                      : ""
                  }`}
                  confirmLabel={`Yes, submit ${d.delivery_day}`}
                  onConfirm={() => p.onAction(a)}
                />
              )
              : (
                <button
                  key={a.step}
                  type="button"
                  class="btn btn-small"
                  aria-label={name}
                  disabled={p.busy}
                  onClick={() => p.onAction(a)}
                >
                  {a.label}
                </button>
              );
          })}
        </td>
      )}
    </tr>
  );
}
