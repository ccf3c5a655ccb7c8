/**
 * Public-holiday regions of a market location (docs/weather.md, "Market locations"): `DE` (the
 * nationwide holidays) or `DE-<state>` with a state code of npm:date-holidays' calendar of Germany.
 * The codes are listed here rather than read from date-holidays, which evaluates every country's
 * data when imported (~0.1 s; docs/startup.md): the wire shapes are loaded when the service starts.
 * `tests/unit/holiday_regions_test.ts` holds this list equal to `getStates("DE")` of the installed
 * date-holidays.
 * @module
 */

/** The German states as date-holidays names them (ISO 3166-2:DE without the `DE-`). */
export const GERMAN_STATES: readonly string[] = [
  "BB",
  "BE",
  "BW",
  "BY",
  "HB",
  "HE",
  "HH",
  "MV",
  "NI",
  "NW",
  "RP",
  "SH",
  "SL",
  "SN",
  "ST",
  "TH",
];

/** Why `region` is not a holiday region of a German market location, or `undefined`. */
export function holidayRegionProblem(region: string): string | undefined {
  if (region === "DE") return undefined;
  const m = /^DE-([A-Z]{2})$/.exec(region);
  if (m && GERMAN_STATES.includes(m[1])) return undefined;
  return `expected DE or DE-<state> with a state of ${GERMAN_STATES.join(", ")} (e.g. DE-NW)`;
}
