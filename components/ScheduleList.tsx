/**
 * The schedules of one delivery day (docs/fahrplan.md): per
 * control area the TSO, the message version, what the TSO made of it — with the reason in words —
 * and buttons that download the ESS or CIM document. A summary says how many areas confirmed the
 * current version (docs/console.md, "Rows").
 * @module
 */
import type { DayOverview } from "../lib/console/types.ts";
import { tsoSummary } from "../lib/console/day_texts.ts";
import { Badge, type Tone } from "./Badge.tsx";

const TONE: Record<string, Tone> = {
  sent: "info",
  acknowledged: "info",
  confirmed: "ok",
  rejected: "error",
  anomaly: "error",
};

/** Props of {@link ScheduleList}. */
export interface ScheduleListProps {
  day: DayOverview;
  /** Downloads the document of `area` in `format`. */
  onDownload: (area: string, format: "ess" | "cim") => void;
}

/** The list; nothing when no schedule was handed over for the day. */
export function ScheduleList({ day, onDownload }: ScheduleListProps) {
  const list = day.schedules ?? [];
  if (!list.length) return null;
  const summary = tsoSummary(day)!;
  return (
    <div class="schedules">
      <h3>
        Schedules {day.delivery_day}{" "}
        <span class={`tso-summary tso-${summary.tone}`}>· {summary.text}</span>
      </h3>
      <ul>
        {list.map((s) => (
          <li key={s.control_area} data-area={s.control_area}>
            <span class="mono">{s.control_area}</span> → <span class="mono">{s.receiver}</span>{" "}
            <span title="message version of the schedule document">document v{s.version}</span>{" "}
            <Badge tone={TONE[s.tso_status] ?? "neutral"}>{s.tso_status}</Badge>
            {s.reason_text && <span class="reason">{s.reason_text}</span>}{" "}
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
          </li>
        ))}
      </ul>
    </div>
  );
}
