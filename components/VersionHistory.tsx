/**
 * The version history of one delivery day and control area (docs/intraday.md, "Version history"):
 * a drill-down under the area's schedule that, when opened, loads
 * `GET /v1/delivery-days/{day}/schedules/{control_area}/versions` and lists every version that
 * left — version, phase, sent at, frozen before (Berlin), TSO status and reason — newest first,
 * marking the one the TSO has. Loaded on demand (each time it is opened), never with the page; while
 * open it follows the day shown (another day selected, a new version or answer: read again), and
 * an answer for a day no longer shown is dropped.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ScheduleVersions } from "../lib/wire/schedules.ts";
import { frozenText, phaseLabel } from "../lib/console/intraday_texts.ts";
import { berlinDate, weekdayDate } from "../lib/console/day_texts.ts";
import { formatBerlinHm } from "../lib/console/format.ts";
import { Badge, type Tone } from "./Badge.tsx";

const TONE: Record<string, Tone> = {
  sent: "info",
  acknowledged: "info",
  confirmed: "ok",
  rejected: "error",
  anomaly: "error",
};

/** Props of {@link VersionHistory}. */
export interface VersionHistoryProps {
  day: string;
  area: string;
  /** Reads the history (the console's `api`; injected by tests). */
  load: (path: string) => Promise<ScheduleVersions>;
  /** Changes when the area's latest version or its TSO status does (read again while open). */
  stamp?: string;
}

/** `10:13 Berlin`, with the date when it is not the delivery day (`16:02 Berlin Tue 24 Nov`). */
function sentText(day: string, iso: string): string {
  const date = berlinDate(Date.parse(iso));
  return `${formatBerlinHm(iso)} Berlin${date === day ? "" : ` ${weekdayDate(date)}`}`;
}

/**
 * The TSO's reason in words; the bare code only where it explains a rejection or an anomaly (a
 * confirmation's A06 says nothing the status does not).
 */
function reasonOf(v: ScheduleVersions["versions"][number]): string | null {
  if (v.reason_text) return v.reason_text;
  return v.tso_status === "rejected" || v.tso_status === "anomaly" ? v.reason_code : null;
}

/** The drill-down. */
export function VersionHistory({ day, area, load, stamp }: VersionHistoryProps) {
  const [got, setGot] = useState<
    { for: string; h: ScheduleVersions | "loading" | string } | null
  >(null);
  const box = useRef<HTMLDetailsElement>(null);
  const shown = `${day}|${area}`;
  // The list of another day (or area) is never shown, not even for a moment.
  const h = got?.for === shown ? got.h : null;
  const open = async () => {
    const mine = `${day}|${area}`;
    setGot({ for: mine, h: "loading" });
    let value: ScheduleVersions | string;
    try {
      value = await load(`/v1/delivery-days/${day}/schedules/${area}/versions`);
    } catch (err) {
      value = `The version history could not be read: ${(err as Error).message ?? String(err)}`;
    }
    setGot((cur) => cur?.for === mine ? { for: mine, h: value } : cur);
  };
  // Another day selected, or a new version or answer: an open history reads again.
  useEffect(() => {
    if (box.current?.open) void open();
  }, [shown, stamp]);
  return (
    <details
      ref={box}
      class="version-history"
      data-area={area}
      data-day={day}
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open) void open();
      }}
    >
      <summary>Version history</summary>
      {h === "loading" && <p class="muted">loading…</p>}
      {typeof h === "string" && h !== "loading" && <p class="error">{h}</p>}
      {h && typeof h === "object" && (
        <div class="table-wrap">
          <table class="versions-table">
            <caption>
              {h.standing_version === null
                ? "The TSO has no version of this schedule (none sent, or all rejected)."
                : `The TSO has v${h.standing_version}.`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Phase</th>
                <th scope="col">Sent</th>
                <th scope="col">Frozen</th>
                <th scope="col">TSO</th>
              </tr>
            </thead>
            <tbody>
              {[...h.versions].reverse().map((v) => (
                <tr
                  key={v.version}
                  data-version={v.version}
                  class={v.version === h.standing_version ? "standing" : undefined}
                >
                  <td data-label="Version">
                    v{v.version}
                    {v.version === h.standing_version && " "}
                    {v.version === h.standing_version && (
                      <span class="muted">(the TSO has it)</span>
                    )}
                  </td>
                  <td data-label="Phase">{phaseLabel(v.phase)}</td>
                  <td data-label="Sent">{sentText(day, v.sent_at)}</td>
                  <td data-label="Frozen">
                    {v.phase === "post_delivery"
                      ? "after delivery"
                      : frozenText(day, v.frozen_before) ?? "nothing frozen"}
                  </td>
                  <td data-label="TSO">
                    <Badge tone={TONE[v.tso_status] ?? "neutral"}>{v.tso_status}</Badge>
                    {reasonOf(v) && <span class="reason">{reasonOf(v)}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
