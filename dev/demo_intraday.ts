/**
 * The demo's intraday part (docs/intraday.md, issue 21 item 8): after the next day's day-ahead
 * schedules are confirmed, the PV parks' forecasts for **today** arrive, an orchestrator pass
 * hands today's next schedule version to the TSOs — only the quarter-hours after the lead time
 * change — and the TSO simulator (on the system clock, so it keeps the lead-time rule) answers it.
 * The result in one line: `today: v2 sent 20:13, frozen before 20:30 Berlin, 4 of 4 confirmed`.
 *
 * The parks' model ({@link parkKw}): PV feed-in on a late-autumn day (08:00–16:30) plus a battery
 * that feeds a fifth of the day's PV energy in between 17:00 and 24:00, so an update changes an
 * open quarter-hour at any hour of a demo run — except in the day's last 30 minutes, when no
 * quarter-hour is open any more; then the line says so.
 * @module
 */

/** The system clock's Berlin date (`YYYY-MM-DD`). */
export function berlinToday(nowMs = Date.now()): string {
  return Temporal.Instant.fromEpochMilliseconds(nowMs).toZonedDateTimeISO("Europe/Berlin")
    .toPlainDate().toString();
}

/**
 * kW fed in by a park of `peakKw` kWp at the quarter-hour starting at Berlin wall-clock `hour`
 * (fractional): the sun between 08:00 and 16:30, the battery from 17:00 to 24:00.
 */
export function parkKw(hour: number, peakKw: number): number {
  const sun = Math.max(0, Math.sin(((hour - 8) / 8.5) * Math.PI));
  // Σ sun over the day ≈ 8.5 h × 2/π; a fifth of it over the 7 evening hours.
  const battery = hour >= 17 ? (0.2 * 8.5 * 2) / Math.PI / 7 : 0;
  return peakKw * 0.35 * (sun + battery);
}

/** CSV rows `market_location_id,start,kw` of one park for every quarter-hour of `day`. */
export function parkRows(id: string, day: string, peakKw: number): string[] {
  const rows: string[] = [];
  const start = Temporal.PlainDate.from(day).toZonedDateTime({ timeZone: "Europe/Berlin" });
  const end = start.add({ days: 1 });
  for (let t = start; Temporal.ZonedDateTime.compare(t, end) < 0; t = t.add({ minutes: 15 })) {
    const kw = parkKw(t.hour + t.minute / 60, peakKw);
    rows.push(`${id},${t.toString({ timeZoneName: "never" })},${kw.toFixed(3)}`);
  }
  return rows;
}

/** What the demo reports about today. */
export interface TodayReport {
  delivery_day: string;
  /** The one line for people. */
  line: string;
  /** The newest message version of today's schedules; `null` when none went out. */
  version: number | null;
  sent_at: string | null;
  frozen_before: string | null;
  confirmed: string;
}

type Entry = {
  version: number;
  tso_status: string;
  sent_at?: string | null;
  frozen_before?: string | null;
};

const hm = (iso: string) =>
  Temporal.Instant.from(iso).toZonedDateTimeISO("Europe/Berlin").toPlainTime().toString()
    .slice(0, 5);

/** The line about today's schedules, from the overview's entries of today. */
export function todayLine(day: string, entries: Entry[], nowMs = Date.now()): TodayReport {
  const confirmed = `${
    entries.filter((e) => e.tso_status === "confirmed").length
  } of ${entries.length} confirmed`;
  const newest = [...entries].sort((a, b) => b.version - a.version)[0];
  if (!newest?.sent_at || !newest.frozen_before) {
    return {
      delivery_day: day,
      line: `today: no schedule version sent (${hm(new Date(nowMs).toISOString())} Berlin)`,
      version: null,
      sent_at: null,
      frozen_before: null,
      confirmed,
    };
  }
  const other = entries.filter((e) => e.version !== newest.version).length;
  return {
    delivery_day: day,
    line: `today: v${newest.version} sent ${hm(newest.sent_at)}, frozen before ${
      hm(newest.frozen_before)
    } Berlin, ${confirmed}${
      other ? ` (${other} area${other === 1 ? "" : "s"} at an older version)` : ""
    }`,
    version: newest.version,
    sent_at: newest.sent_at,
    frozen_before: newest.frozen_before,
    confirmed,
  };
}

/**
 * Posts the parks' forecasts for today, runs one pass, waits (up to ~10 s) for the TSOs'
 * answers to today's newest version and reports it.
 * @param api the demo's API call (process key unless `apiKey` is given)
 * @param parks the parks' MaLo-IDs and peak kWp
 */
export async function intradayToday(
  api: (path: string, method?: string, body?: unknown, key?: string, type?: string) => Promise<
    // deno-lint-ignore no-explicit-any
    any
  >,
  externalKey: string,
  parks: { id: string; peakKw: number }[],
): Promise<TodayReport> {
  const day = berlinToday();
  try {
    // At most 500 forecasts (market location × day) per request: 400 parks at a time.
    for (let j = 0; j < parks.length; j += 400) {
      const rows = parks.slice(j, j + 400).flatMap((p) => parkRows(p.id, day, p.peakKw));
      const body = ["market_location_id,start,kw", ...rows].join("\n") + "\n";
      await api("/v1/forecasts", "POST", body, externalKey, "text/csv");
    }
  } catch (err) {
    // After the day's last quarter-hour has started, forecasts for it are refused (409).
    console.error(`today's forecasts not taken: ${(err as Error).message}`);
  }
  await api("/v1/orchestrate?wait=true", "POST"); // after the cron's pass, if one runs
  let entries: Entry[] = [];
  for (let i = 0; i < 50; i++) {
    await api("/v1/schedule-responses/import", "POST");
    const o = await api("/v1/console/delivery-days");
    entries = o.delivery_days.find((d: { delivery_day: string }) => d.delivery_day === day)
      ?.schedules ?? [];
    const newest = Math.max(0, ...entries.map((e) => e.version));
    const answered = entries.filter((e) => e.version === newest)
      .every((e) => ["confirmed", "rejected", "anomaly"].includes(e.tso_status));
    if (entries.length && answered) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return todayLine(day, entries);
}
