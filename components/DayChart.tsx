/**
 * The selected day below the overview table: its open position ({@link PositionChart}) beside the
 * schedule each TSO has, and its schedules ({@link ScheduleList}) with the phase line, the
 * deviation locked in the frozen quarter-hours and the version history per area
 * (docs/console.md, "Intraday"). The TSO's schedules come from
 * `GET /v1/delivery-days/{day}/schedules/{control_area}/versions` (`standing_quantities`), read
 * when the day, its schedules or its aggregate change. The chart shades what is frozen now and
 * draws a "now" line, both moving with the page's clock.
 * @module
 */
import { useComputed } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { frozenNowBefore } from "../lib/console/intraday_texts.ts";
import { now } from "../lib/console/session.ts";
import type { DayOverview, OpenPosition } from "../lib/console/types.ts";
import type { ScheduleVersions } from "../lib/wire/schedules.ts";
import type { AttentionItem } from "../lib/wire/attention.ts";
import { PositionChart, type PositionChartProps } from "./PositionChart.tsx";
import { ScheduleList } from "./ScheduleList.tsx";

/** Props of {@link DayChart}. */
export interface DayChartProps {
  dayName: string;
  /** The day's overview entry (`undefined` while loading). */
  day: DayOverview | undefined;
  position: OpenPosition | "missing" | null;
  onDownload: (area: string, format: "ess" | "cim") => void;
  /** Reads a version history (the console's `api`). */
  loadVersions: (path: string) => Promise<ScheduleVersions>;
  /** Asks the TSO of `area` for its current answer (status request); no button without. */
  onStatusRequest?: (area: string) => void;
  /** Answer files about the day that could not be read (`rejected_answer` items). */
  unread?: readonly AttentionItem[];
}

/**
 * The schedule the TSO has per area (standing version and its MW), from each area's history;
 * an area whose history cannot be read or that has no standing version is left out.
 */
export async function tsoSchedules(
  day: string,
  areas: readonly string[],
  load: (path: string) => Promise<ScheduleVersions>,
): Promise<NonNullable<PositionChartProps["tso"]>> {
  const out: NonNullable<PositionChartProps["tso"]> = {};
  await Promise.all(areas.map(async (a) => {
    try {
      const h = await load(`/v1/delivery-days/${day}/schedules/${a}/versions`);
      if (h.standing_version !== null && h.standing_quantities) {
        out[a] = { version: h.standing_version, mw: h.standing_quantities };
      }
    } catch {
      // The chart shows the open position alone; the drill-down says why when opened.
    }
  }));
  return out;
}

/** The chart and the schedules of the selected day. */
export function DayChart(p: DayChartProps) {
  const [tso, setTso] = useState<{ key: string; value: PositionChartProps["tso"] } | null>(null);
  const areas = (p.day?.schedules ?? []).map((s) => s.control_area);
  // A new answer of a TSO or a new version changes the key: read the standing versions again.
  const key = `${p.dayName}|${
    (p.day?.schedules ?? []).map((s) => `${s.control_area}:${s.version}:${s.tso_status}`).join(",")
  }`;
  useEffect(() => {
    if (!areas.length) return void setTso(null);
    let live = true;
    void tsoSchedules(p.dayName, areas, p.loadVersions).then((value) => {
      if (live) setTso({ key, value });
    });
    return () => {
      live = false;
    };
  }, [key]);
  // The frozen part and the "now" line move with the clock: drawn again when they change (the
  // frozen part at a quarter-hour, the line once a minute), not at every tick.
  const lead = p.day?.intraday_lead_minutes;
  const frozen = useComputed(() =>
    lead === undefined ? undefined : frozenNowBefore(now.value, lead)
  );
  const minute = useComputed(() => Math.floor(now.value / 60_000) * 60_000);
  const pos = p.position;
  return (
    <>
      <h3>
        Open position {p.dayName}
        {pos && pos !== "missing" && (
          <span class="muted">· aggregate version {pos.version} · MW</span>
        )}
      </h3>
      {pos === "missing" && <p class="placeholder">Not aggregated yet for this day.</p>}
      {pos && pos !== "missing" && (
        <PositionChart
          position={pos}
          tso={tso?.key === key ? tso.value : undefined}
          frozenBefore={frozen.value}
          nowMs={minute.value}
        />
      )}
      {p.day && (
        <ScheduleList
          day={p.day}
          onDownload={p.onDownload}
          loadVersions={p.loadVersions}
          onStatusRequest={p.onStatusRequest}
          unread={p.unread}
        />
      )}
    </>
  );
}
