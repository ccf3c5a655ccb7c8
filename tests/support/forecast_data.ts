/**
 * Forecast values and CSV bodies for tests (docs/pipeline.md, "Forecasts"): pure, no KV, no HTTP.
 * @module
 */

/** `n` quarter-hour values of `kw` each. */
export const flat = (n: number, kw: number) => Array.from({ length: n }, () => kw);

/**
 * The data rows of a complete long-format CSV day for one market location, every value `kw`:
 * `<malo>,<start with offset>,<kw>`, one per real quarter-hour of the day in Europe/Berlin.
 */
export function csvRows(malo: string, day: string, kw: number): string[] {
  const start = Temporal.PlainDate.from(day).toZonedDateTime({ timeZone: "Europe/Berlin" });
  const end = start.add({ days: 1 });
  const rows: string[] = [];
  for (let t = start; Temporal.ZonedDateTime.compare(t, end) < 0; t = t.add({ minutes: 15 })) {
    rows.push(`${malo},${t.toString({ timeZoneName: "never" })},${kw}`);
  }
  return rows;
}

/** A complete long-format CSV day for one market location, every value `kw`. */
export function csvDay(malo: string, day: string, kw: number): string {
  return ["market_location_id,start,kw", ...csvRows(malo, day, kw)].join("\n") + "\n";
}
