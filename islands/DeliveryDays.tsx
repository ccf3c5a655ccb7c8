/**
 * Island: the delivery-day overview (docs/pipeline.md, "Day state and staleness"). One row per day with the
 * forecast, aggregated, published and submitted steps (time, caller, stale marker with its
 * reason), a countdown to gate closure, the open-position chart of the selected day, and the
 * manual pipeline steps and "Import answers" — offered only when the status answer lists them
 * (`manual_actions`). Reloads every 60 s and shortly after every live pipeline event; a manual
 * pass also reads the status again at once.
 * @module
 */
import { untracked, useSignal, useSignalEffect } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { ConfirmButton } from "../components/ConfirmButton.tsx";
import { DayRow, type StepAction } from "../components/DayRow.tsx";
import { DayChart } from "../components/DayChart.tsx";
import { AfterDelivery } from "./AfterDelivery.tsx";
import { berlinDate } from "../lib/console/day_texts.ts";
import { downloadSchedule } from "../lib/console/download.ts";
import { ApiError } from "../lib/console/api.ts";
import {
  api,
  apiKey,
  authProblem,
  feed,
  isRefusal,
  now,
  refreshStatus,
  status,
  today,
} from "../lib/console/session.ts";
import { PastDays, pastDays } from "../components/PastDays.tsx";
import { unreadAnswers } from "../components/AttentionSummary.tsx";
import { focusDay, focusDayRow } from "../lib/console/focus.ts";
import type { DayOverview, OpenPosition } from "../lib/console/types.ts";
import type { ScheduleVersions } from "../lib/wire/schedules.ts";
import { STEP_TABLE } from "../lib/pipeline/step_table.ts";
import {
  type ImportBody,
  importSummary,
  type PassReportBody,
  passSummary,
} from "../lib/console/run_texts.ts";

/**
 * Events after which the overview reloads: every step's, a forecast, a failure, and a TSO's
 * answer to a schedule (so "N of M confirmed" follows the inbox without a reload).
 */
const PIPELINE_KINDS = new Set<string>([
  "forecast_received",
  ...STEP_TABLE.map((row) => row.event),
  "orchestration_error",
  "orchestration_recovered",
  "schedule_acknowledged",
  "schedule_confirmed",
  "schedule_rejected",
  "anomaly_reported",
]);

/** The route that imports the TSO's answers waiting in the inbox. */
const IMPORT_PATH = "/v1/schedule-responses/import";

/** The manual steps, in pipeline order: path suffix, label, and whether it asks first. */
export const STEP_ACTIONS: StepAction[] = STEP_TABLE.map((row) => ({
  step: row.step,
  label: row.label,
  ...(row.step === "submit" ? { confirm: true } : {}),
}));

/**
 * The day to chart when none is chosen: the first in which a quarter-hour is still open for a
 * schedule version (`schedules_open_until` ahead: today while it runs, the day in intraday), else
 * the first whose gate closure is ahead, else the last.
 */
export function defaultDay(days: DayOverview[], nowMs: number = Date.now()): string | null {
  const open = days.find((d) =>
    d.schedules_open_until && Date.parse(d.schedules_open_until) > nowMs
  );
  return (open ?? days.find((d) => !d.gate_closure_passed) ?? days[days.length - 1])
    ?.delivery_day ?? null;
}

/**
 * Scrolls `box` (the chart of the selected day, still loading) into view unless its top and
 * the 320 px below it already are; smoothly unless the reader prefers reduced motion.
 */
export function revealChart(box: HTMLElement | null): void {
  if (!box) return;
  const r = box.getBoundingClientRect();
  if (r.top >= 0 && r.top + 320 <= globalThis.innerHeight) return;
  const still = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  box.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
}

/** The overview. */
export function DeliveryDays() {
  const days = useSignal<DayOverview[] | null>(null);
  const unavailable = useSignal(false);
  const error = useSignal<string | null>(null);
  const selected = useSignal<string | null>(null);
  const position = useSignal<OpenPosition | "missing" | null>(null);
  const busy = useSignal<string | null>(null);
  const note = useSignal<{ ok: boolean; text: string } | null>(null);
  const chartBox = useRef<HTMLDivElement>(null);
  // Phones (the card layout of static/narrow.css): the chart goes under the selected card.
  const narrow = useSignal(false);
  useEffect(() => {
    const mq = globalThis.matchMedia?.("(max-width: 640px)");
    if (!mq) return;
    const update = () => narrow.value = mq.matches;
    update();
    mq.addEventListener("change", update);
    return () => mq.removeEventListener("change", update);
  }, []);

  const loadPosition = async (day: string | null) => {
    if (!day) return void (position.value = null);
    // A day never aggregated (e.g. tomorrow without state, a past day the service kept nothing
    // of) has no open position to ask for.
    const entry = days.peek()?.find((d) => d.delivery_day === day);
    if (entry && !entry.steps.aggregated) return void (position.value = "missing");
    if (!entry && day < berlinDate(now.peek())) return void (position.value = "missing");
    try {
      const p = await api<OpenPosition>("GET", `/v1/delivery-days/${day}/open-position`);
      if (selected.peek() === day) position.value = p;
    } catch (err) {
      if (selected.peek() === day) {
        position.value = err instanceof ApiError && err.status === 404 ? "missing" : null;
      }
    }
  };
  const load = async () => {
    try {
      const r = await api<{ delivery_days: DayOverview[]; without_state?: DayOverview[] }>(
        "GET",
        "/v1/console/delivery-days",
      );
      // Today and tomorrow have a row also without state (docs/console.md, "Rows").
      r.delivery_days = [...r.delivery_days, ...(r.without_state ?? [])]
        .sort((a, b) => a.delivery_day.localeCompare(b.delivery_day));
      days.value = r.delivery_days;
      unavailable.value = false;
      error.value = null;
      // A past day stays chosen while it is offered (it may have no stored state: no entry).
      const chosen = selected.peek();
      const offered = chosen !== null &&
        (r.delivery_days.some((d) => d.delivery_day === chosen) ||
          pastDays(berlinDate(now.peek())).includes(chosen));
      if (!offered) selected.value = defaultDay(r.delivery_days);
      await loadPosition(selected.peek());
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        days.value = [];
        unavailable.value = true;
      } else if (isRefusal(err)) days.value = null;
      else error.value = err instanceof ApiError ? err.detail : String(err);
    }
  };

  useSignalEffect(() => {
    const key = apiKey.value;
    untracked(() => {
      error.value = null;
      note.value = null;
    });
    if (!key) {
      days.value = null;
      position.value = null;
      return;
    }
    void load();
    const timer = setInterval(load, 60_000);
    return () => clearInterval(timer);
  });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = feed.subscribe((batch, source) => {
      // The history loaded at start is what `load` already read.
      if (source !== "live" || !batch.some((e) => PIPELINE_KINDS.has(e.kind))) return;
      clearTimeout(timer);
      timer = setTimeout(load, 800);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);

  // An attention item asks for a day: select it and bring its row into view.
  useSignalEffect(() => {
    const f = focusDay.value;
    if (!f) return;
    untracked(() => {
      if (selected.peek() !== f.day) select(f.day);
      focusDayRow(f.day);
    });
  });

  const offered = new Set<string>(status.value?.manual_actions ?? []);
  const actions = STEP_ACTIONS.filter((a) => offered.has(a.step));
  const canOrchestrate = offered.has("orchestrate");
  const canImport = offered.has("import_answers");

  const run = async (label: string, path: string) => {
    busy.value = label;
    note.value = null;
    try {
      const answer = await api<unknown>("POST", path);
      note.value = path === "/v1/orchestrate"
        ? passSummary(label, answer as PassReportBody)
        : path === IMPORT_PATH
        ? importSummary(answer as ImportBody)
        : { ok: true, text: `${label}: done.` };
    } catch (err) {
      const why = err instanceof ApiError
        ? `${err.status ? `(${err.status}) ` : ""}${err.detail}`
        : String(err);
      note.value = { ok: false, text: `${label}: refused ${why}` };
    } finally {
      busy.value = null;
      // The status bar shows the pass at once (last pass, failures), and the attention list what
      // an import changed (a rejected answer settled by a later one), not at their next poll.
      if (path === "/v1/orchestrate" || path === IMPORT_PATH) refreshStatus();
      await load();
    }
  };
  const select = (day: string) => {
    selected.value = day;
    position.value = null;
    void loadPosition(day);
    // On a phone the chart is far below the tapped row: bring it into view.
    requestAnimationFrame(() => revealChart(chartBox.current));
  };

  /** Fetches the ESS or CIM document of `area` for the selected day and saves it as a file. */
  const download = async (area: string, format: "ess" | "cim") => {
    const day = selected.peek();
    if (!day) return;
    try {
      await downloadSchedule(day, area, format, apiKey.peek() ?? "");
    } catch (err) {
      error.value = `Download of the ${format.toUpperCase()} document for ${area} failed: ${
        err instanceof ApiError ? err.detail : String(err)
      }`;
    }
  };

  // Re-rendered when the date changes (which days are past), not with every tick of the clock.
  void today.value;
  const todayIs = berlinDate(now.peek());
  const all = days.value;
  // The table holds today and the days to come; the days after delivery are above it.
  const list = all?.filter((d) => d.delivery_day >= todayIs) ?? null;
  const past = pastDays(todayIs);
  const selectedDay = all?.find((d) => d.delivery_day === selected.value);
  const isPast = !!selected.value && selected.value < todayIs;
  const unread = (day: string) => unreadAnswers(status.value?.attention ?? [], day);
  const chart = selected.value && all && (all.length > 0 || isPast) && (
    <div class="chart-box" ref={chartBox}>
      {/* A day before today (Berlin) is over: what it cost comes first (docs/console.md). */}
      {isPast && <AfterDelivery day={selected.value} />}
      {(!isPast || selectedDay) && (
        <DayChart
          dayName={selected.value}
          day={selectedDay}
          position={position.value}
          onDownload={(area, format) => void download(area, format)}
          loadVersions={(path) =>
            api<ScheduleVersions>("GET", path)}
          unread={unread(selected.value)}
          onStatusRequest={(area) =>
            void run(
              `Status request ${selected.value} ${area}`,
              `/v1/delivery-days/${selected.value}/schedules/${area}/status-request`,
            )}
        />
      )}
    </div>
  );
  return (
    <div class="days">
      <div class="toolbar">
        {canOrchestrate && (
          <ConfirmButton
            label="Run orchestrator now…"
            disabled={!!busy.value}
            question="Run the orchestrator once now? It runs the missing or stale steps for the coming delivery days, also while scheduled runs are stopped."
            confirmLabel="Yes, run it now"
            onConfirm={() => run("Orchestrate", "/v1/orchestrate")}
          />
        )}
        {canImport && (
          <button
            type="button"
            class="btn"
            disabled={!!busy.value}
            onClick={() => run("Import answers", IMPORT_PATH)}
          >
            Import answers
          </button>
        )}
        {busy.value && <span class="muted" role="status">{busy.value}: running…</span>}
        {note.value && (
          <span class={note.value.ok ? "ok" : "error"} role="status">{note.value.text}</span>
        )}
      </div>
      {error.value && <p class="error" role="alert">{error.value}</p>}
      {all && (
        <PastDays
          days={past}
          selected={selected.value}
          onSelect={select}
          nowMs={now.peek()}
        />
      )}
      {/* A past day opens right under its button, on a phone too (not under the last card). */}
      {isPast && chart}
      {!apiKey.value && <p class="placeholder">Enter the process key to see the delivery days.</p>}
      {apiKey.value && !list && authProblem.value && (
        <p class="placeholder">Refused: see the message at the top.</p>
      )}
      {list && list.length === 0 && (
        <p class="placeholder">
          {unavailable.value
            ? "This service does not offer the delivery-day overview yet."
            : "No delivery days yet: they appear when forecasts arrive."}
        </p>
      )}
      {list && list.length > 0 && (
        <div class="table-wrap">
          <table class="days-table">
            <thead>
              <tr>
                <th scope="col">Delivery day</th>
                <th scope="col">Gate closure</th>
                <th scope="col">Input</th>
                <th scope="col">Forecast</th>
                <th scope="col">Aggregated</th>
                <th scope="col">Published</th>
                <th scope="col">Submitted</th>
                {actions.length > 0 && <th scope="col">Manual steps</th>}
              </tr>
            </thead>
            <tbody>
              {list.flatMap((d) => [
                <DayRow
                  key={d.delivery_day}
                  day={d}
                  unread={unread(d.delivery_day)}
                  selected={d.delivery_day === selected.value}
                  onSelect={() => select(d.delivery_day)}
                  actions={actions}
                  busy={!!busy.value}
                  onAction={(a) =>
                    run(
                      `${a.label} ${d.delivery_day}`,
                      `/v1/delivery-days/${d.delivery_day}/${a.step}`,
                    )}
                />,
                // On a phone the chart opens under the tapped card, not below the last one.
                narrow.value && !isPast && chart && d.delivery_day === selected.value && (
                  <tr key={`chart-${d.delivery_day}`} class="chart-row">
                    <td colSpan={7 + (actions.length > 0 ? 1 : 0)}>{chart}</td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      {!narrow.value && !isPast && chart}
    </div>
  );
}
