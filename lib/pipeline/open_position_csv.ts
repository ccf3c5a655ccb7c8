/**
 * The open position as CSV (docs/pipeline.md, "Publish"; the published file and the `text/csv` data delivery).
 *
 * Columns: `quarter_hour_start_utc` (ISO-8601, `Z`), `quarter_hour_start_local` (ISO-8601 with
 * the Europe/Berlin offset, so the doubled hour of the autumn clock change stays unambiguous),
 * then one column per control-area EIC in MW with `.` as decimal separator. One header row;
 * 92, 96 or 100 data rows; `\r\n` line ends (RFC 4180).
 * @module
 */
import { stringify } from "csv-stringify/sync";
import type { Aggregate } from "./aggregate.ts";

/** Local ISO-8601 with offset of an instant, Europe/Berlin (e.g. `2026-10-25T02:00:00+02:00`). */
export function localIso(instantIso: string): string {
  const z = Temporal.Instant.from(instantIso).toZonedDateTimeISO("Europe/Berlin");
  return z.toString({ timeZoneName: "never" });
}

/** Europe/Berlin offset of an instant, in minutes east of UTC. */
function berlinOffsetMinutes(instantIso: string): number {
  const ns = Temporal.Instant.from(instantIso).toZonedDateTimeISO("Europe/Berlin")
    .offsetNanoseconds;
  return ns / 60_000_000_000;
}

/**
 * {@link localIso} of every quarter-hour of a day: when the first and the last quarter-hour have
 * the same offset (every day but the two clock-change days) the offset is added by hand, else each
 * is converted on its own.
 */
function localIsos(quarterHours: string[]): string[] {
  if (quarterHours.length === 0) return [];
  const offset = berlinOffsetMinutes(quarterHours[0]);
  if (offset !== berlinOffsetMinutes(quarterHours[quarterHours.length - 1])) {
    return quarterHours.map(localIso);
  }
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const suffix = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${
    String(abs % 60).padStart(2, "0")
  }`;
  return quarterHours.map((q) =>
    new Date(Date.parse(q) + offset * 60_000).toISOString().slice(0, 19) + suffix
  );
}

/** Renders the aggregate as CSV text. */
export function openPositionCsv(agg: Aggregate): string {
  const areas = Object.keys(agg.areas);
  const rows: (string | number)[][] = [[
    "quarter_hour_start_utc",
    "quarter_hour_start_local",
    ...areas,
  ]];
  const local = localIsos(agg.quarter_hours);
  agg.quarter_hours.forEach((q, i) => {
    rows.push([q, local[i], ...areas.map((a) => agg.areas[a][i].toFixed(6))]);
  });
  return stringify(rows, { record_delimiter: "\r\n" });
}

/** File name of a published open position: day and aggregate version, e.g. `open_position_2026-11-23_v7.csv`. */
export function openPositionFileName(agg: Aggregate): string {
  return `open_position_${agg.delivery_day}_v${agg.version}.csv`;
}
