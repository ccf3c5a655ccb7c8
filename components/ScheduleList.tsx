/**
 * The schedules of one delivery day (docs/fahrplan.md): per control area the TSO (its name
 * beside the EICs), the schedule's message version ("schedule v1", not the aggregate version),
 * what the TSO made of it — with the reason in words — and buttons that download the ESS or CIM
 * document. A summary says how many areas confirmed the current version (docs/console.md, "Rows").
 * @module
 */
import type { DayOverview } from "../lib/console/types.ts";
import { tsoName } from "../lib/fahrplan/tso_names.ts";
import { tsoSummary } from "../lib/console/day_texts.ts";
import {
  lockedDeviationText,
  phaseLabel,
  statusRequestText,
} from "../lib/console/intraday_texts.ts";
import { browserLocale, formatBerlinHm } from "../lib/console/format.ts";
import { PhaseLine } from "./PhaseLine.tsx";
import type { ScheduleVersions } from "../lib/wire/schedules.ts";
import type { AttentionItem } from "../lib/wire/attention.ts";
import { Badge, type Tone } from "./Badge.tsx";
import { VersionHistory } from "./VersionHistory.tsx";

const TONE: Record<string, Tone> = {
  sent: "info",
  acknowledged: "info",
  confirmed: "ok",
  rejected: "error",
  anomaly: "error",
};

export { downloadName } from "../lib/console/download.ts";

/** An EIC with its TSO's name beside it when it is one of the four German TSOs'. */
function Eic({ eic }: { eic: string }) {
  const name = tsoName(eic);
  return (
    <>
      <span class="mono">{eic}</span>
      {name && <span class="tso-name">{name}</span>}
    </>
  );
}

/** Props of {@link ScheduleList}. */
export interface ScheduleListProps {
  day: DayOverview;
  /** Downloads the document of `area` in `format`. */
  onDownload: (area: string, format: "ess" | "cim") => void;
  /** Reads a version history (`GET …/versions`) for the drill-down of each area; none without. */
  loadVersions?: (path: string) => Promise<ScheduleVersions>;
  /** Asks the area's TSO for its current answer (status request); no button without. */
  onStatusRequest?: (area: string) => void;
  /**
   * Answer files about the day that could not be read (`rejected_answer` items): their areas
   * (every area when a file names none) offer a status request also when confirmed.
   */
  unread?: readonly AttentionItem[];
}

/** The list; nothing when no schedule was handed over for the day. */
export function ScheduleList(
  { day, onDownload, loadVersions, onStatusRequest, unread = [] }: ScheduleListProps,
) {
  const list = day.schedules ?? [];
  if (!list.length) return null;
  const summary = tsoSummary(day)!;
  const locked = lockedDeviationText(list, browserLocale());
  return (
    <div class="schedules">
      <h3 id="schedules" tabIndex={-1}>
        Schedules {day.delivery_day}{" "}
        <span class={`tso-summary tso-${summary.tone}`}>· {summary.text}</span>
      </h3>
      <PhaseLine day={day} class="phase-line" />
      {locked && (
        <p class="locked-deviation" role="note">
          {locked}: the quarter-hours inside the lead time are frozen at the schedule the TSO has.
        </p>
      )}
      <ul>
        {list.map((s) => (
          <li key={s.control_area} data-area={s.control_area}>
            <span class="schedule-parties">
              <span class="muted">area</span> <Eic eic={s.control_area} /> →{" "}
              <span class="muted">TSO</span> <Eic eic={s.receiver} />
            </span>{" "}
            <span
              class="step-ver"
              title="message version of the schedule document sent to the TSO (counts every resend); not the aggregate version"
            >
              schedule v{s.version}
            </span>{" "}
            <Badge tone={TONE[s.tso_status] ?? "neutral"}>{s.tso_status}</Badge>
            {s.phase && (
              <span class="muted schedule-phase">
                {phaseLabel(s.phase)}
                {s.sent_at ? `, sent ${formatBerlinHm(s.sent_at)} Berlin` : ""}
              </span>
            )}
            {s.reason_text && <span class="reason">{s.reason_text}</span>}{" "}
            {statusRequestText(s) && (
              <span class="status-request muted" role="note">{statusRequestText(s)}</span>
            )}{" "}
            <span class="schedule-downloads">
              <button
                type="button"
                class="btn btn-small"
                aria-label={`ESS document ${s.control_area}`}
                onClick={() => onDownload(s.control_area, "ess")}
              >
                ESS
              </button>{" "}
              <button
                type="button"
                class="btn btn-small"
                aria-label={`CIM document ${s.control_area}`}
                onClick={() => onDownload(s.control_area, "cim")}
              >
                CIM
              </button>
              {onStatusRequest &&
                (s.tso_status !== "confirmed" ||
                  unread.some((i) => !i.control_area || i.control_area === s.control_area)) &&
                (
                  <>
                    {" "}
                    <button
                      type="button"
                      class="btn btn-small"
                      aria-label={`Request status from the TSO of ${s.control_area}`}
                      title="Send the TSO a status request (SRQ): it answers with its current ACK, CNF or ANO"
                      onClick={() => onStatusRequest(s.control_area)}
                    >
                      Request status
                    </button>
                  </>
                )}
            </span>
            {loadVersions && (
              <VersionHistory
                day={day.delivery_day}
                area={s.control_area}
                load={loadVersions}
                stamp={`${s.version}:${s.tso_status}`}
              />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
